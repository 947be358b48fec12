# The two set-up commands of the README, plus the benchmarks. All idempotent.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# What running errdex needs (make run), and that plus the contributor tools (make test).
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
# Every dev tool and dependency pinned; change a pin here and the next make reinstalls.
CONSTRAINTS := constraints.txt
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check -c $(CONSTRAINTS)
# setuptools tells of every editable install in a boxed warning ("Editable installation
# ... be careful with folders ..."); nothing in it is for the user of make.
QUIET := PYTHONWARNINGS="ignore:Editable installation"
SEED := encoder_cudagraph_max_vision_items_per_batch must be non-negative (0 = auto-infer)

.PHONY: run test bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(QUIET) $(PIP) --upgrade pip
	$(QUIET) $(PIP) -e .
	touch $(RUN_STAMP)

$(DEV_STAMP): $(RUN_STAMP)
	$(QUIET) $(PIP) -e '.[dev]'
	touch $(DEV_STAMP)

run: $(RUN_STAMP)
	$(BIN)/errdex index pypi:vllm==0.28.0
	$(BIN)/errdex serve --host 127.0.0.1 --port 8000 --show "$(SEED)"

lint: $(DEV_STAMP)
	$(BIN)/ruff check errdex tests benchmarks docs
	$(BIN)/ruff format --check errdex tests benchmarks docs
	$(BIN)/mypy

# pytest's exit 5 (no test collected) fails unless NO_TESTS_OK is set, as .ci/run sets it.
# The PostgreSQL half of the store tests runs a throwaway cluster when the server binaries
# are here (tests/postgres.py); when they are not, this says so before the tests start.
test: lint
	@$(BIN)/python -c "from tests.postgres import why_not; w = why_not(); \
	  print('PostgreSQL half of the tests: ' + ('runs, on a throwaway cluster' if w is None \
	  else 'SKIPPED: ' + w))"
	$(BIN)/python -m pytest -n 2 -q || { rc=$$?; \
	  if [ $$rc -eq 5 ] && [ -n "$(NO_TESTS_OK)" ]; then echo "pytest collected no tests"; \
	  else exit $$rc; fi; }

bench: $(DEV_STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build dist

# Long fuzzing of the extractor: generated modules and mutated real files through
# parse_file and a small tree's extract; `make test` runs a short version of it.
# Then the matcher's (tests/fuzz_match.py): random and adversarial text against a hostile
# package, each answer timed (ERRDEX_FUZZ_EXAMPLES examples per property, 3,000 unless set).
.PHONY: fuzz
fuzz: $(DEV_STAMP)
	$(BIN)/python -m tests.fuzz_extract --examples 2000 --mutants 40
	$(BIN)/python -m pytest -q tests/fuzz_match.py
