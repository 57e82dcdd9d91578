// The Strata engine. It re-exports the vocabulary, so `import Strata` is all an application needs.
@_exported import StrataCore
