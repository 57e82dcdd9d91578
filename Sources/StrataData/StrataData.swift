// StrataData: SwiftData's API on Linux, backed by Strata's engine and any of its backends.
//
// A program written against SwiftData's documented API compiles with `import StrataData` in
// place of `import SwiftData`. The module re-exports Foundation (for `#Predicate`,
// `SortDescriptor`, `Date`, `URL`, ...) and nothing of Strata's own vocabulary, so names such as
// `Schema` or `Entity` mean what they mean in SwiftData. It may import Foundation, StrataCore,
// StrataEngine and Strata (the built-in backends, chosen by a configuration's URL).

@_exported import Foundation
