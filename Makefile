# The README's two commands: `make demo` (set up, run the embedded demo) and `make test` (set up, run the tests).
# TORCH_SPEC pins the torch build the `hf` extra uses here (CUDA wheels on local disk that also run on CPU);
# on a GPU machine pick the build for your CUDA, e.g. TORCH_SPEC="torch torchvision".
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
TORCH_SPEC ?= torch==2.14.1 torchvision==0.29.1
DEMO_OUT ?= demo_out
# Peers' environments (docs/frames.md, docs/plugins.md): the decoder tests (the files that decode or encode
# with PyAV; the sampler's index arithmetic does not) run again under the oldest PyAV the core declares and,
# with the `lmms` extra (lmms-eval 0.7.3, which caps PyAV below 16), in lmms-eval's own environment, where the
# lmms-eval comparisons run too; lm-eval's own readers read our results files. Each is a --target folder put
# first on PYTHONPATH in front of the main venv, installed once and kept until setup.cfg changes.
PEERS := $(VENV)/peers
AV_OLDEST ?= 12.0.0
DECODER_TESTS := tests/test_frames_decode.py tests/test_frames_writer.py tests/test_frames_cache.py
LMMS_TESTS := tests/test_lmms_eval_tasks.py tests/test_lmms_port.py tests/test_lmms_conventions.py
# The suite runs on every core (pytest-xdist, the `test` extra); each test file stays on one worker
# (--dist loadfile), so a module fixture is built once. PYTEST_WORKERS=0 runs it in one process. The peers'
# runs are a few files: serial, where starting the workers would cost more than they save.
PYTEST_WORKERS ?= auto
PEER_PYTEST := $(PY) -m pytest -q -p no:cacheprovider
PYTEST := $(PEER_PYTEST) -n $(PYTEST_WORKERS) --dist loadfile
# lm-eval's own readers of results files (utils.make_table, the tracker's file-name helpers) for the results
# schema test; they need only these of lm-eval's dependencies (the rest, torch and transformers, come from the venv)
LM_EVAL_PEER := lm-eval==0.4.13 pytablewriter DataProperty mbstrdecoder pathvalidate tabledata tcolorpy typepy \
	chardet python-dateutil pytz
LM_EVAL_TESTS := tests/test_lm_eval_results.py

.PHONY: setup-core setup setup-peers demo test test-peers test-wheel lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel

$(VENV)/.core: $(PY) setup.cfg pyproject.toml
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.all: $(VENV)/.core
	$(PY) -m pip install -q $(TORCH_SPEC)
	$(PY) -m pip install -q -e ".[all,blender]"
	touch $@

# the grid's executors (`harness grid`, tests/test_grid_cluster.py): the `ray` and `slurm` extras, beside `all`
$(VENV)/.grid: $(VENV)/.all
	$(PY) -m pip install -q -e ".[ray,slurm]"
	touch $@

$(PEERS)/av-oldest/.done: $(VENV)/.core
	rm -rf $(@D)
	$(PY) -m pip install -q --no-deps --only-binary=:all: --target $(@D) "av==$(AV_OLDEST)"
	touch $@

$(PEERS)/lmms/.done: $(VENV)/.all setup.cfg
	rm -rf $(@D) && mkdir -p $(@D)
	$(PY) -c "import configparser as c; p = c.ConfigParser(); p.read('setup.cfg'); \
		print(p['options.extras_require']['lmms'].strip())" > $(PEERS)/lmms-requirements.txt
	$(PY) -m pip install -q --no-deps --only-binary=:all: --target $(@D) -r $(PEERS)/lmms-requirements.txt
	touch $@

$(PEERS)/lm-eval/.done: $(VENV)/.core Makefile
	rm -rf $(@D)
	$(PY) -m pip install -q --no-deps --only-binary=:all: --target $(@D) $(LM_EVAL_PEER)
	touch $@

setup-core: $(VENV)/.core
setup: $(VENV)/.all
setup-peers: $(PEERS)/av-oldest/.done $(PEERS)/lmms/.done $(PEERS)/lm-eval/.done

demo: setup-core
	$(PY) -m harness demo --out $(DEMO_OUT)

test: setup $(VENV)/.grid
	@# CI only: headless Chromium for the report's HTML test, FFmpeg's shared libraries for torchcodec
	@# (transformers serve decodes video with it; the `ffmpeg` package brings every library torchcodec loads,
	@# libavdevice and libavfilter included), and SLURM with munge for the grid's one-node SLURM cluster;
	@# each test skips where its piece is missing
	@if [ -n "$$CI" ] && command -v apt-get >/dev/null 2>&1; then \
		need=""; command -v chromium >/dev/null 2>&1 || need="chromium"; \
		ldconfig -p | grep -q libavdevice || need="$$need ffmpeg"; \
		command -v slurmctld >/dev/null 2>&1 && command -v munged >/dev/null 2>&1 || need="$$need slurm-wlm munge"; \
		if [ -n "$$need" ]; then (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null) \
			|| echo "could not install$$need: the tests that need them will skip"; fi; \
		$(PY) -c "from transformers.utils.import_utils import is_torchcodec_usable as u; \
			print('torchcodec can decode video:', u(decode='video'))" || true; fi
	$(PY) -m ruff check .
	$(PYTEST)
	$(MAKE) --no-print-directory test-peers

# The wheel check alone (make test runs it in the suite): `python -m build` makes sdist and wheel from the
# tree, the wheel installs non-editable into a fresh venv, and `ls tasks` and the demo run from a folder outside
# the checkout that has its own tasks/, models/, metrics/ and builders/ packages (tests/test_install_wheel.py)
test-wheel: setup
	$(PEER_PYTEST) tests/test_install_wheel.py

test-peers: setup setup-peers
	PYTHONPATH=$(PEERS)/av-oldest $(PEER_PYTEST) $(DECODER_TESTS)
	PYTHONPATH=$(PEERS)/lmms $(PEER_PYTEST) $(DECODER_TESTS) $(LMMS_TESTS)
	PYTHONPATH=$(PEERS)/lm-eval $(PEER_PYTEST) $(LM_EVAL_TESTS)

bench: setup
	$(PY) -m bench

clean:
	rm -rf $(VENV) $(DEMO_OUT)
