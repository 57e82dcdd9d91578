#if !canImport(Darwin)
    // Foundation on Linux lacks the expression `#Predicate` writes for
    // `localizedStandardContains(_:)`, so such a predicate would not compile; StrataData supplies it
    // under the name and shape it has on Apple platforms.

    extension PredicateExpressions {
        /// `root.localizedStandardContains(other)` in a `#Predicate`: a substring test ignoring
        /// case and diacritics.
        public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>:
            PredicateExpression
        where Root.Output: StringProtocol, Other.Output: StringProtocol {
            /// The string searched.
            public let root: Root
            /// The string searched for.
            public let other: Other

            /// Creates the expression.
            public init(root: Root, other: Other) {
                self.root = root
                self.other = other
            }

            /// Whether `root` contains `other`, ignoring case and diacritics.
            public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
                try root.evaluate(bindings).localizedStandardContains(other.evaluate(bindings))
            }
        }

        /// The expression `#Predicate` builds for `root.localizedStandardContains(other)` (the
        /// macro chooses the name).
        // swift-format-ignore: AlwaysUseLowerCamelCase
        public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other)
            -> StringLocalizedStandardContains<Root, Other>
        {
            StringLocalizedStandardContains(root: root, other: other)
        }
    }

    extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
    where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

    extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}

    extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

    extension PredicateExpressions.StringLocalizedStandardContains: CustomStringConvertible {
        /// `StringLocalizedStandardContains(root: ..., other: ...)`, as Foundation's expressions print.
        public var description: String { "StringLocalizedStandardContains(root: \(root), other: \(other))" }
    }
#endif
