# The two commands of the README, plus helpers. Each installs missing system packages first.

.PHONY: deps demo test test-tsan test-reliability test-tsan-ci test-asan build clean-demo lint format

deps:
	@./scripts/install-deps.sh

## Run the demo on the default embedded store (SQLite, ./strata-demo.sqlite).
demo: deps
	swift run -c release strata demo

## Run every test: the engine, the conformance kit on every backend, the tool; then the
## reliability tests (docs/Reliability.md) in a run of their own: their hundreds of processes and
## fuzzing load the machine, and the container tests' loader thread (nice +10) starves beside them.
test: deps
	swift test --skip StrataReliabilityTests
	swift test --skip-build --filter StrataReliabilityTests

## The concurrency and store tests under ThreadSanitizer.
test-tsan: deps
	swift test --sanitize=thread

## The reliability tests alone: crash, fault injection, contention, hostile input, fuzzing
## (docs/Reliability.md). Their counts are the lines starting with "reliability:".
test-reliability: deps
	swift test --filter StrataReliabilityTests

# The sanitizer runs of CI, each in a build directory of its own so that they do not rebuild
# the plain one.
TSAN_TESTS = StrataTests|StrataInMemoryTests|StrataSQLiteTests|StrataLMDBTests|StrataXMLTests|StrataConformanceTests|FaultInjectionTests|DefectRegressionTests
ASAN_TESTS = PredicateFuzz|PredicateParser|PredicateFormat|ModelErrorTests|ModelFuzz|HostileXML|aDamagedOrTruncatedStoreFile|KeyExhaustion|XMLSafety|XMLBadInput|XMLDoubleParser|XMLRoundTrip|SQLiteBadInput|LMDBBadInput|LMDBPageCheck|aDamagedOrTruncatedLMDBDataFile

## CI: the concurrency and store tests (engine, every backend, the conformance kit, the
## fault-injection tests) under ThreadSanitizer.
test-tsan-ci: deps
	swift test --scratch-path .build/tsan --sanitize=thread --filter '$(TSAN_TESTS)'

## CI: the parsers (predicates, model files, XML and JSON, damaged store files) under
## AddressSanitizer: out-of-bounds accesses, use after free, double free. Leak detection is off:
## LeakSanitizer cannot follow the bit-packed references Swift keeps in globals, and reports the
## tests' static tables and Foundation's caches (22 KB in 240 allocations) as leaks.
test-asan: deps
	ASAN_OPTIONS=detect_leaks=0 swift test --scratch-path .build/asan --sanitize=address --filter '$(ASAN_TESTS)'

build: deps
	swift build

# Every Swift file of the package and of the benchmarks, in the house style (.swift-format).
FORMATTED = Package.swift Sources Backends Migrations Probes Tests Examples Benchmarks/Package.swift Benchmarks/Sources

## Check the formatting (swift-format, which ships with Swift 6); CI fails on any finding.
lint:
	swift format lint --strict --recursive --parallel $(FORMATTED)

## Reformat every Swift file in place.
format:
	swift format format --in-place --recursive --parallel $(FORMATTED)
