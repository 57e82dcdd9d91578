// StrataTestSupport: what the test targets, the probes and the torture kit share (the seeded
// generator and byte mutator, temporary directories, finding and running a built executable, the
// probes' models and error line, a store wrapper for test doubles). Not a product; no library
// depends on it. It imports StrataCore, and swift-log for the capturing log handler.
