#!/usr/bin/env bash
# What a GPU machine must show, in parts that each fit one call of the lent H100 (10 minutes):
#   tools/gpu-check.sh grade [--lab N ...]   ./cml grade --compare: labs/ and the solutions side by side
#   tools/gpu-check.sh tests                 the project's tests but the planted bugs (suites, build, units)
#   tools/gpu-check.sh fixtures [EXPR]       the planted-bug submissions, each graded on a clean build (those matching
#                                            the pytest -k expression EXPR), in TEST_PROCESSES at once (below)
#   tools/gpu-check.sh class [batch options] the generated class (grader/tests/support/classes.py) graded by
#                                            ./cml batch, then checked against the verdicts each must get
#                                            (resumable: run again)
#   tools/gpu-check.sh class-gpus N          N seven-lab students of the generated class graded by ./cml batch on
#                                            every GPU, then the same on the first GPU alone, each from a new
#                                            results folder; every verdict checked, and the wall times, each
#                                            worker's share and their ratio in class-gpus.md
#   tools/gpu-check.sh repeat N [options]    ./cml grade --solutions --no-mechanisms N times, and the spread of
#                                            every verdict and ratio over the runs (REPEAT_SECONDS: stop early;
#                                            REPEAT_FIRST: number the runs from there)
#   tools/gpu-check.sh counters              ncu on planted kernels, to set beside the CPU emulator's counters
#   tools/gpu-check.sh calibrate RUNS        ./cml calibrate of the labs not measured yet on this GPU, over the
#                                            solutions and variants/, time-boxed (CALIBRATE_SECONDS), adding
#                                            to .calib/measurements.json: carry .calib from one call to the next
#   tools/gpu-check.sh step-times GPU RUNS   ./cml calibrate --times-only of the labs whose reference solution is not
#                                            timed yet, adding to results/calibration/GPU-measurements.json's copy
#                                            in .calib/step-times.json, time-boxed (CALIBRATE_SECONDS): carry .calib;
#                                            the copy and its thresholds file come back in $OUT
#   tools/gpu-check.sh solutions             the solutions graded, every mechanism on, against .calib/target.toml
#                                            where a calibrate call left one, else grader/targets/
#   tools/gpu-check.sh speed [OLD_CHECKOUT]  the seven solutions graded from a clean build, with each step's time,
#                                            then again with the build folder kept (each kernel.cu compiled anew);
#                                            and by an older checkout's grader, for comparison (same machine)
#   tools/gpu-check.sh submission-speed OLD  the seven solutions graded as a submission (the student's steps), from a
#                                            clean and a kept build folder, in turn with an older checkout's grader
#   tools/gpu-check.sh trace [BUILD_DIR]     where a benchmark's and a sanitizer's seconds go: each solution's
#                                            benchmark alone with its trace, then Lab 4's racecheck case by case
#   tools/gpu-check.sh attacks [EXPR]        the attack submissions' verdicts that need a GPU (test_attacks.py, those
#                                            matching the pytest -k expression EXPR), in TEST_PROCESSES at once:
#                                            each grades its share of the cases in build folders of its own, and
#                                            every grader on the GPU takes turns on it (grader/execution/gpu_lock.py),
#                                            as the labs of one grade do (TEST_PROCESSES, default 3)
#   tools/gpu-check.sh variants SEED         every variant graded as seven-lab students (tools/grade-variants.sh),
#                                            time-boxed (VARIANTS_SECONDS) and resumable from .results/variants-SEED;
#                                            one of the ten repeats that judge the thresholds
#                                            (python -m grader.calibration.variants repeats)
#   tools/gpu-check.sh stretches NAMES       Lab 4's stretch candidates, one after another on this GPU: each variant
#                                            of NAMES (comma-separated; "solution" is the reference solution)
#                                            graded with its benchmark, its stretch against cuBLAS from the same run
#                                            (tools/stretch_speeds.py, over every stretch-*.json in the folder), and
#                                            the stretch's own cases under racecheck and memcheck, which the grade's
#                                            sanitizers leave out
# Logs and JSON go to $OUT (the device tool's folder) or .results/. Offline machines: carry .deps/ (the
# doctest header, and a wheelhouse in .deps/wheels that pip then installs from).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-.results}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -d .deps/wheels ]; then
    export PIP_NO_INDEX=1 PIP_FIND_LINKS="$PWD/.deps/wheels"
fi
export PYTHONUNBUFFERED=1
# No chromium on the GPU machine: the browser checks run in CI, not here.
export CML_SKIP_BROWSER=1
part=${1:?usage: tools/gpu-check.sh grade|tests|fixtures|class|class-gpus|repeat|counters|calibrate|step-times|solutions|speed|submission-speed|trace|attacks|variants|stretches [options]}
shift
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu \
    --format=csv | tee "$out/gpu-$part.txt"
# A test file's cases (those matching EXPR) dealt out over TEST_PROCESSES pytest processes at once, each with
# build folders of its own (CML_TEST_BUILDS); their logs in $out/NAME-I.log, all of them in $out/NAME.log.
in_processes() {  # NAME FILE EXPR
    local name=$1 file=$2 expr=$3 processes=${TEST_PROCESSES:-3} status=0 i
    trap 'kill $(jobs -p) 2>/dev/null; exit 143' TERM INT  # a time limit on this script ends its processes too
    # Through ./cml test, which installs pytest on a fresh machine first.
    ./cml test -n 0 --slow --collect-only -q -p no:cacheprovider "$file" ${expr:+-k "$expr"} >"$out/$name-collected.txt" 2>&1
    mapfile -t cases < <(grep '::' "$out/$name-collected.txt")
    if [ ${#cases[@]} -eq 0 ]; then  # nothing ran is no pass: say why
        echo "no case of $file matches ${expr:-(all)}; pytest said:" | tee "$out/$name.log"
        tail -n 20 "$out/$name-collected.txt" | tee -a "$out/$name.log"
        return 1
    fi
    for ((i = 0; i < processes; i++)); do
        share=()
        for k in "${!cases[@]}"; do [ $((k % processes)) -eq "$i" ] && share+=("${cases[$k]}"); done
        [ ${#share[@]} -gt 0 ] || continue
        # One pytest process each (./cml test otherwise deals its cases out over the cores itself).
        CML_TEST_BUILDS="build-$name-$i" ./cml test -n 0 --slow -v "${share[@]}" >"$out/$name-$i.log" 2>&1 &
    done
    for job in $(jobs -p); do wait "$job" || status=1; done
    cat "$out/$name"-*.log >"$out/$name.log"
    grep -hE "passed|failed" "$out/$name"-*.log | grep -E "^=+ " | tee -a "$out/$name.log"
    # The evidence each case recorded on this GPU, to commit beside the emulator's (docs/maintainer.md), in one
    # file (the device tool brings back few files, none deeper than two folders).
    find grader/tests/evidence -name '*.json' ! -name '*.cpu-emulator.json' -newer "$out/$name-collected.txt" |
        tar czf "$out/$name-evidence.tar.gz" -T -
    return $status
}

case "$part" in
    grade) ./cml grade --compare --json "$out/grade.json" "$@" 2>&1 | tee "$out/grade.log" ;;
    tests) ./cml test -v -k "not test_fixtures" "$@" 2>&1 | tee "$out/tests.log" ;;
    fixtures) in_processes fixtures grader/tests/cases/test_fixtures.py "${1:-}" ;;
    class)
        ./cml list >/dev/null  # installs the environment
        [ -d .results/class/submissions ] || .venv/bin/python -m grader.tests.support.classes make .results/class
        ./cml batch .results/class/submissions --out .results/class/results "$@" 2>&1 | tee -a "$out/class.log"
        .venv/bin/python -m grader.tests.support.classes check .results/class 2>&1 | tee -a "$out/class.log"
        # The reports, without the build folders.
        (cd .results/class && tar czf "$out/class-results.tar.gz" expected.json results/results.csv \
            results/results.json results/students) ;;
    class-gpus)
        students=${1:?how many seven-lab students}; shift
        where=.results/class-gpus
        rm -rf "$where" && mkdir -p "$where"
        ./cml --help >/dev/null  # the environment, installed before the clock starts
        .venv/bin/python -m grader.tests.support.classes make "$where" --seven-lab "$students" --only-seven-lab
        every=$(nvidia-smi -L | grep -c '^GPU ')
        for run in all first; do
            if [ "$run" = all ]; then visible=$(seq -s, 0 $((every - 1))); else visible=0; fi
            echo "== $students students on GPU(s) $visible" | tee -a "$out/class-gpus.log"
            CUDA_VISIBLE_DEVICES=$visible ./cml batch "$where/submissions" --out "$where/$run" "$@" 2>&1 |
                tee -a "$out/class-gpus.log"
            .venv/bin/python -m grader.tests.support.classes check "$where" --results "$where/$run" 2>&1 |
                tee -a "$out/class-gpus.log"
        done
        PYTHONPATH=. .venv/bin/python tools/class_gpus.py "$where/all" "$where/first" | tee "$out/class-gpus.md"
        (cd "$where" && tar czf "$out/class-gpus-results.tar.gz" expected.json all/results.csv first/results.csv \
            all/results.json first/results.json all/workers.json first/workers.json all/students first/students) ;;
    repeat)
        runs=${1:?how many runs}; shift
        mkdir -p "$out/repeat"
        stop=$((SECONDS + ${REPEAT_SECONDS:-86400}))
        for i in $(seq "${REPEAT_FIRST:-1}" "$runs"); do
            [ "$SECONDS" -lt "$stop" ] || break
            ./cml grade --solutions --no-mechanisms --json "$out/repeat/run-$i.json" "$@" >"$out/repeat/run-$i.log" 2>&1
            echo "run $i: exit $? after ${SECONDS} s" | tee -a "$out/repeat.log"
        done
        PYTHONPATH=. .venv/bin/python tools/verdict_noise.py "$out"/repeat/run-*.json | tee "$out/repeat/noise.md"
        tar czf "$out/repeat.tar.gz" -C "$out" repeat && rm -r "$out/repeat" ;;
    counters) tools/ncu-planted.sh "$out" 2>&1 | tee "$out/counters.log" ;;
    calibrate)
        mkdir -p .calib
        # Time-boxed: the measurements are saved after each lab, so the next call goes on from there.
        timeout "${CALIBRATE_SECONDS:-520}" ./cml calibrate --runs "${1:?how many runs}" --missing-only \
            --output .calib/target.toml --measurements .calib/measurements.json 2>&1 | tee "$out/calibrate.log"
        cp .calib/measurements.json .calib/target.toml "$out/" ;;
    step-times)
        gpu=${1:?h100 or h200: the measurements in results/calibration/ to add the times to}
        mkdir -p .calib
        [ -f .calib/step-times.json ] || cp "results/calibration/$gpu-measurements.json" .calib/step-times.json
        timeout "${CALIBRATE_SECONDS:-520}" ./cml calibrate --times-only --missing-only --runs "${2:?how many runs}" \
            --output .calib/step-times.toml --measurements .calib/step-times.json 2>&1 | tee "$out/step-times.log"
        cp .calib/step-times.json .calib/step-times.toml "$out/" ;;
    solutions)
        target=()
        [ -f .calib/target.toml ] && target=(--target .calib/target.toml)
        ./cml grade --solutions "${target[@]}" --json "$out/grade-solutions.json" 2>&1 |
            tee "$out/solutions.log" | tail -30 ;;
    speed)
        rm -rf build-speed
        start=$SECONDS
        ./cml grade --solutions --build-dir build-speed --json "$out/speed-new.json" >"$out/speed-new.log" 2>&1
        echo "this checkout: exit $?, $((SECONDS - start)) s" | tee "$out/speed.log"
        # Again in the same build folder, as the next student of a batch worker: the grader's own programs are
        # built, every kernel.cu is compiled anew (touched, as a new submission's would be).
        touch solutions/*/kernel.cu
        start=$SECONDS
        ./cml grade --solutions --build-dir build-speed --json "$out/speed-new-kept.json" >"$out/speed-new-kept.log" 2>&1
        echo "this checkout, build folder kept, kernels compiled anew: exit $?, $((SECONDS - start)) s" |
            tee -a "$out/speed.log"
        if [ -n "${1:-}" ]; then
            (cd "$1" && rm -rf build-speed && start=$SECONDS &&
                ./cml grade --solutions --build-dir build-speed --json "$out/speed-old.json" >"$out/speed-old.log" 2>&1
                echo "$1: exit $?, $((SECONDS - start)) s") | tee -a "$out/speed.log"
        fi
        PYTHONPATH=. .venv/bin/python tools/step_times.py "$out"/speed-*.json | tee -a "$out/speed.log" ;;
    submission-speed)
        # The seven solutions graded as a student's submission, every kernel.cu through the student's own steps:
        # from a clean build folder, then again in the kept folder as a batch worker's next student; in turn with
        # an older checkout's grader (OLD_CHECKOUT, which needs a .deps of its own: this one's is copied), so that
        # both see the same machine.
        old=${1:?an older checkout to compare with}
        [ -d "$old/.deps" ] || cp -r .deps "$old/"
        (cd "$old" && ./cml list >/dev/null)  # installs its environment before anything is timed
        rm -rf build-speed "$old/build-speed"
        for round in clean kept; do
            for checkout in . "$old"; do
                name=$([ "$checkout" = . ] && echo this || echo old)
                start=$SECONDS
                (cd "$checkout" && ./cml grade --submission solutions --build-dir build-speed \
                    --json "$out/speed-$name-$round.json" >"$out/speed-$name-$round.log" 2>&1)
                echo "$name checkout ($checkout), $round build folder: exit $?, $((SECONDS - start)) s" |
                    tee -a "$out/speed.log"
            done
        done ;;
    trace)
        build=${1:-build-speed}
        for bench in "$build"/*_solution_bench; do
            echo "== $bench" && /usr/bin/time -f "%e s wall" "$bench" 2>&1 >/dev/null | grep -E "^\[|wall|error"
        done 2>&1 | tee "$out/trace.log"
        # Lab 4's racecheck at three drawn shapes of the grader's ranges (grader/labs.toml), each case's time.
        CML_SEED=1 CML_GRADER_SIZES="320x300x310;160x200x250;17x33x65" /usr/bin/time -f "%e s wall" \
            compute-sanitizer --tool racecheck "$build/04_tiled_gemm_solution_test" --duration=true 2>&1 |
            grep -E "^[0-9.]+ s: |SUMMARY|wall" | tee -a "$out/trace.log" ;;
    attacks) in_processes attacks grader/tests/cases/test_attacks.py "${1:-}" ;;
    variants)
        seed=${1:?a seed}
        timeout "${VARIANTS_SECONDS:-560}" tools/grade-variants.sh --seed "$seed" --out ".results/variants-$seed" \
            --resume >"$out/variants-$seed.log" 2>&1
        .venv/bin/python -m grader.calibration.variants table ".results/variants-$seed" >"$out/variants-$seed.md"
        grep -c "| yes |" "$out/variants-$seed.md"
        tar czf "$out/variants-$seed.tar.gz" -C ".results/variants-$seed" . ;;
    stretches)
        names=${1:?the variants of Lab 4 to time, comma-separated ("solution": the reference solution)}
        for name in ${names//,/ }; do
            echo "== $name"
            if [ "$name" = solution ]; then
                program="build-stretches/04_tiled_gemm_solution_test"
                ./cml grade --solutions --lab 4 --build-dir build-stretches --no-mechanisms \
                    --json "$out/stretch-solution.json" >"$out/stretch-solution.log" 2>&1
                status=$?
            else
                program="build-stretches/student/04_tiled_gemm/test/04_tiled_gemm_student_test"
                submission=".results/stretches/$name"
                mkdir -p "$submission/04_tiled_gemm"
                cp "variants/04_tiled_gemm/$name.cu" "$submission/04_tiled_gemm/kernel.cu" || continue
                ./cml grade --submission "$submission" --lab 4 --build-dir build-stretches --no-mechanisms \
                    --json "$out/stretch-$name.json" >"$out/stretch-$name.log" 2>&1
                status=$?
            fi
            echo "grade: exit status $status (4: incomplete, the mechanisms left out)"
            for tool in racecheck memcheck; do
                echo "$tool, the stretch's cases: $(compute-sanitizer --tool "$tool" "$program" -ts='stretch*' 2>&1 |
                    grep -E 'test cases:|SUMMARY' | paste -sd' ')"
            done
        done 2>&1 | tee "$out/stretches.log"
        PYTHONPATH=. .venv/bin/python tools/stretch_speeds.py "$out"/stretch-*.json | tee "$out/stretches.md" ;;
    *) echo "unknown part: $part" >&2; exit 2 ;;
esac
