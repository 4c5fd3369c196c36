# Benchmarks (bench/, issue 10): side-by-side figures written to docs/benchmarks.md (+ docs/benchmarks/*.png).
# `make bench` (Makefile) runs every BENCH_TARGETS entry; none of this is part of `make test`.
# BENCH_QUICK=1 runs fewer repetitions. Figures of each area stay in bench/results/<area>.json, so one area can be
# re-run alone and the page is rewritten from all of them. Charts need matplotlib, which bench/setup.sh installs
# into the bench-only venv .cache/bench-venv (with kubernetes.core for the component comparison).
BENCH_TARGETS += bench-all

.PHONY: bench-all bench-cloud bench-inprocess bench-parallel bench-scale bench-gen bench-component-compare bench-emu bench-report bench-check

bench-all: venv ## all benchmark areas, then rewrite docs/benchmarks.md (the component area starts a local cluster of its own)
	$(PY) bench/run.py

bench-cloud: venv ## cloud modules: no-op vs ping, payload, import time, API calls per action, polling latency (2 s, 60 s ops); runtime-only and dev venv
	$(PY) bench/run.py --area cloud

bench-inprocess: venv ## issue 26: 10 no-op cloud tasks vs 10 pings, a no-op component task vs debug, on both execution paths; where an in-process task's time goes (its worker, profiled)
	$(PY) bench/run.py --area inprocess

bench-parallel: venv ## three 6 s creates: one after the other vs wait=false + one operation_info task (issue 18)
	$(PY) bench/run.py --area parallel

bench-scale: venv ## 50 instances, forks 10: first converge and no-op re-run
	$(PY) bench/run.py --area scale

bench-gen: venv ## generator render + check figures for the report (bench/generator_bench.py)
	$(PY) bench/run.py --area generator

bench-component-compare: venv ## component vs kubectl --server-side vs kubernetes.core.k8s, 300 and 1000 objects (local cluster)
	$(PY) bench/run.py --area component

bench-emu: venv ## emulator throughput figures for the report (bench/emulator_throughput.py)
	$(PY) bench/run.py --area emulator

bench-check: venv ## check bench/results/*.json against bench/baselines/*.json (fails on a figure > 20 % worse)
	$(PY) bench/regression.py

bench-report: venv ## rewrite docs/benchmarks.md and its charts from bench/results/*.json
	$(PY) bench/run.py --report-only

MYPY_PATHS += bench/benchlib.py bench/cloud_bench.py bench/parallel_bench.py bench/scale_bench.py bench/component_compare.py bench/poll_simulation.py bench/run.py bench/report.py bench/test_bench_tools.py bench/engine_floor.py bench/operator_set.py bench/regression.py bench/drift_bench.py bench/inprocess_bench.py bench/report_inprocess.py bench/report_issue26.py bench/worker_profile.py bench/worker_probe
