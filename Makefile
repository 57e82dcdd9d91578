# The two commands of the README, plus helpers. Each installs missing system packages first.

.PHONY: deps demo test test-tsan test-reliability test-tsan-ci test-asan build clean-demo lint lint-docs format docs tutorial-check api-check api-update

deps:
	@./scripts/install-deps.sh

## Run the demo on the default embedded store (SQLite, ./strata-demo.sqlite).
demo: deps
	swift run -c release strata demo

## Run every test: the engine, the conformance kit on every backend, the tool (PostgreSQL's
## against a throwaway local cluster that scripts/postgres-test-server starts, or against the
## server STRATA_TEST_POSTGRES_URL names); then the reliability tests (docs/Reliability.md) in a run of their own: their hundreds of processes and
## fuzzing load the machine, and the container tests' loader thread (nice +10) starves beside them.
test: deps
	url=$${STRATA_TEST_POSTGRES_URL:-$$(./scripts/postgres-test-server start)} && \
	STRATA_TEST_POSTGRES_URL=$$url STRATA_REQUIRE_POSTGRES=1 swift test --skip StrataReliabilityTests && \
	STRATA_TEST_POSTGRES_URL=$$url STRATA_REQUIRE_POSTGRES=1 swift test --skip-build --filter StrataReliabilityTests

## The concurrency and store tests under ThreadSanitizer.
test-tsan: deps
	swift test --sanitize=thread

## The reliability tests alone: crash, fault injection, contention, hostile input, fuzzing
## (docs/Reliability.md). Their counts are the lines starting with "reliability:".
test-reliability: deps
	swift test --filter StrataReliabilityTests

# The sanitizer runs of CI, each in a build directory of its own so that they do not rebuild
# the plain one.
# ThreadSanitizer watches threads: the engine, the conformance kit on every backend, fault
# injection, the defect regressions, and the backends' suites that share a store between threads.
# The backends' single-threaded suites (SQL, queries, files) run in the plain suite only.
TSAN_TESTS = StrataTests|StrataConformanceTests|FaultInjectionTests|DefectRegressionTests|SQLiteMultiProcessTests|SQLiteQueryShapeTests|SQLiteStoreSafetyTests|LMDBEnvironmentTests|XMLKeyLedgerTests
ASAN_TESTS = PredicateFuzz|PredicateParser|PredicateFormat|ModelErrorTests|ModelFuzz|HostileXML|aDamagedOrTruncatedStoreFile|KeyExhaustion|XMLSafety|XMLBadInput|XMLDoubleParser|XMLRoundTrip|SQLiteBadInput|LMDBBadInput|LMDBPageCheck|aDamagedOrTruncatedLMDBDataFile

## CI: the concurrency tests (engine, the conformance kit on every backend, the backends' suites
## that share a store between threads, the fault-injection tests) under ThreadSanitizer; the stress tests' racers save 200 times each
## instead of 1,000 (the plain suite runs them in full).
test-tsan-ci: deps
	STRATA_STRESS_ROUNDS=200 swift test --scratch-path .build/tsan --sanitize=thread --filter '$(TSAN_TESTS)'

## CI: the parsers (predicates, model files, XML and JSON, damaged store files) under
## AddressSanitizer: out-of-bounds accesses, use after free, double free. Leak detection is off:
## LeakSanitizer cannot follow the bit-packed references Swift keeps in globals, and reports the
## tests' static tables and Foundation's caches (22 KB in 240 allocations) as leaks.
test-asan: deps
	ASAN_OPTIONS=detect_leaks=0 swift test --scratch-path .build/asan --sanitize=address --filter '$(ASAN_TESTS)'

build: deps
	swift build

# The library products' modules, each with a DocC catalog (<Module>.docc beside its sources) whose
# articles are docs/*.md.
DOC_TARGETS = Strata StrataEngine StrataCore StrataData StrataMigrations StrataTransfer StrataConformance \
	StrataInMemory StrataSQLite StrataLMDB StrataXML StrataPostgres

## Build the documentation of every library module (DocC, in one run) into
## .build/plugins/Swift-DocC/outputs/. A warning about a catalog's own page (a landing page or an
## article: a broken symbol or article link) fails it; the doc comments' warnings are printed.
docs: deps
	@out=$$(mktemp); \
	swift package generate-documentation $(foreach t,$(DOC_TARGETS),--target $(t)) > "$$out" 2>&1; \
	status=$$?; cat "$$out"; \
	pages=$$(grep -A1 -E '^(warning|error):' "$$out" | grep -E '^ *--> [^ ]*\.md:' | sort -u); \
	rm -f "$$out"; \
	if [ "$$status" != 0 ]; then exit "$$status"; fi; \
	if [ -n "$$pages" ]; then \
	  printf '%s\n' "$$pages"; echo "docs: DocC warned about the catalog pages above; fix their links" >&2; exit 1; \
	fi

## Follow docs/Tutorial.md in a temporary directory against this checkout.
tutorial-check: deps
	./scripts/tutorial-check.sh

## Fail when a public symbol of the last release (tag) is gone or changed (scripts/api-check.sh).
api-check: deps
	./scripts/api-check.sh check

## Record the public API as it is now in api/public-api.txt (at a release, before tagging).
api-update: deps
	./scripts/api-check.sh update

# Every Swift file of the package and of the benchmarks, in the house style (.swift-format).
FORMATTED = Package.swift Sources Backends Migrations Probes Tests Examples Benchmarks/Package.swift Benchmarks/Sources

## Check the formatting (swift-format, which ships with Swift 6) and the user docs; CI fails on any
## finding.
lint: lint-docs
	swift format lint --strict --recursive --parallel $(FORMATTED)

# Words that speak of how Strata is made rather than of Strata: a user's docs name no seed, issue
# number or helper process of the project's own.
DOCS_FORBIDDEN = seed 0|issue \#?[0-9]|agents

## Check that the README, docs/ and the changelog speak to users about Strata alone.
lint-docs:
	@if grep -rniE '$(DOCS_FORBIDDEN)' README.md docs CHANGELOG.md; then \
	  echo "lint-docs: the lines above speak of the project's workings, not to users; reword them" >&2; \
	  exit 1; \
	fi

## Reformat every Swift file in place.
format:
	swift format format --in-place --recursive --parallel $(FORMATTED)
