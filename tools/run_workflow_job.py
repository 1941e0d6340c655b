"""Runs one job of a GitHub Actions workflow in a root file system, step by step, as a hosted runner would:
each `run:` step with `bash --noprofile --norc -eo pipefail` from $GITHUB_WORKSPACE, with the workflow's
and the step's env, $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY and CI=true; later steps are skipped after a failure
unless their `if:` is always(). Actions (`uses:`) are not run: actions/checkout must have been done by the
caller (its `path:` is checked to exist), actions/upload-artifact checks that its files exist.

    python tools/run_workflow_job.py WORKFLOW JOB ROOT        (as root: it chroots into ROOT)

Expressions: ${{ env.NAME }}, ${{ steps.ID.outputs.NAME }}, ${{ secrets.X || github.token }} (as ''); any
other is an error, so nothing is silently left out. Exit status: 0 when every step that ran succeeded."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

WORKSPACE = "/github/workspace"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def read_outputs(path: Path) -> dict[str, str]:
    """NAME=VALUE lines of a step's $GITHUB_OUTPUT (the one-line form the workflow uses)."""
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def evaluate(text: str, env: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    def value(match: re.Match) -> str:
        expression = match.group(1)
        if m := re.fullmatch(r"env\.(\w+)", expression):
            return env.get(m.group(1), "")
        if m := re.fullmatch(r"steps\.([\w-]+)\.outputs\.(\w+)", expression):
            return outputs.get(m.group(1), {}).get(m.group(2), "")
        if re.fullmatch(r"secrets\.\w+ \|\| github\.token", expression):
            return ""
        raise SystemExit(f"run_workflow_job: expression not handled here: {expression}")

    return EXPRESSION.sub(value, text)


def main() -> int:
    workflow, job_id, root = yaml.safe_load(Path(sys.argv[1]).read_text()), sys.argv[2], Path(sys.argv[3])
    job = workflow["jobs"][job_id]
    github = root / "github"
    env = {k: str(v) for k, v in (workflow.get("env") or {}).items()}
    outputs: dict[str, dict[str, str]] = {}
    summary = github / "step_summary.md"
    summary.write_text("")
    failed = False
    print(f"== job {job_id}: {job.get('name', job_id)} (runs-on: {job['runs-on']})", flush=True)
    for number, step in enumerate(job["steps"], start=1):
        name = step.get("name") or step.get("uses") or f"step {number}"
        always = str(step.get("if", "")).strip() == "always()"
        if failed and not always:
            print(f"-- {number}. {name}: skipped (an earlier step failed)", flush=True)
            continue
        if "uses" in step:
            action, given = step["uses"].split("@")[0], step.get("with") or {}
            if action == "actions/checkout":
                path = root / WORKSPACE.lstrip("/") / given.get("path", "")
                repository = evaluate(str(given.get("repository", "this repository")), env, outputs)
                ok = path.is_dir()
                print(
                    f"-- {number}. {name}: {action} of {repository} into {path.name}/: made by the caller "
                    f"({'present' if ok else 'MISSING'})",
                    flush=True,
                )
            elif action == "actions/upload-artifact":
                files = [line.strip() for line in str(given.get("path", "")).splitlines() if line.strip()]
                missing = [f for f in files if not (root / WORKSPACE.lstrip("/") / f).exists()]
                ok = not missing
                print(
                    f"-- {number}. {name}: {action} {given.get('name')}: {', '.join(files)}"
                    + (f" (MISSING: {', '.join(missing)})" if missing else " (all present)"),
                    flush=True,
                )
            else:
                raise SystemExit(f"run_workflow_job: action not handled here: {action}")
            failed |= not ok
            continue
        output = github / f"output-{number}"
        output.write_text("")
        script = github / f"step-{number}.sh"
        script.write_text(evaluate(step["run"], env, outputs))
        step_env = {**env, **{k: evaluate(str(v), env, outputs) for k, v in (step.get("env") or {}).items()}}
        variables = {
            "HOME": "/root",
            "LANG": "C.UTF-8",
            "PATH": ROOT_PATH,
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": WORKSPACE,
            "GITHUB_OUTPUT": f"/github/output-{number}",
            "GITHUB_STEP_SUMMARY": "/github/step_summary.md",
            "RUNNER_OS": "Linux",
            "PIP_CERT": "/etc/host-ca-certificates.crt",
            **step_env,
        }
        print(f"-- {number}. {name}: run", flush=True)
        command = [
            "chroot",
            str(root),
            "/usr/bin/env",
            "-i",
            *(f"{k}={v}" for k, v in variables.items()),
            "bash",
            "-c",
            f"cd {WORKSPACE} && exec bash --noprofile --norc -eo pipefail /github/step-{number}.sh",
        ]
        status = subprocess.run(command, check=False).returncode
        if step.get("id"):
            outputs[step["id"]] = read_outputs(output)
        print(f"   exit {status}" + (f"; outputs {outputs[step['id']]}" if step.get("id") else ""), flush=True)
        failed |= status != 0
    print("== the job summary ($GITHUB_STEP_SUMMARY):\n" + summary.read_text(), flush=True)
    print(f"== job {job_id}: {'FAILED' if failed else 'succeeded'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    if os.geteuid() != 0:
        sys.exit("run_workflow_job: run as root (it chroots)")
    sys.exit(main())
