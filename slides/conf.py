# Sphinx configuration of the decks: Markdown (MyST) built to reveal.js by sphinx-revealjs, which bundles
# reveal.js itself, so the built HTML needs nothing from the network. build.py copies this file next to the
# decks and the generated pictures and runs sphinx-build on that copy.
project = "cuda-memory-labs"
author = "cuda-memory-labs"
extensions = ["myst_parser", "sphinx_revealjs"]
myst_enable_extensions = ["colon_fence", "attrs_inline", "attrs_block"]
root_doc = "index"
exclude_patterns = []
revealjs_static_path = ["_static"]  # (sphinx-revealjs reads its own setting, not html_static_path)

revealjs_style_theme = "white"
revealjs_css_files = ["revealjs/plugin/highlight/zenburn.css", "course.css"]
revealjs_script_plugins = [{"name": "RevealHighlight", "src": "revealjs/plugin/highlight/highlight.js"}]
revealjs_script_conf = {
    "width": 1280,
    "height": 720,
    "margin": 0.04,
    "center": False,
    "hash": True,
    "slideNumber": "c/t",
    "transition": "none",
}
