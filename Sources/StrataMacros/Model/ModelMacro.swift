import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model` on a final class (StrataData): the backing object's storage, the schema metadata, the
/// layout, `init(backingData:)`, an accessor macro on every stored property, and the conformance
/// to `PersistentModel`.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let type = className(of: declaration, diagnosingIn: context, at: node) else { return [] }
        let analysis = ModelClassAnalysis(declaration.memberBlock)
        for problem in analysis.problems + analysis.keyPathListProblems(declaration.memberBlock, model: type) {
            context.diagnose(Diagnostic(node: problem.node, message: problem.message))
        }
        let metadata = analysis.properties.map { property -> String in
            let described = property.metadata?.description ?? "nil"
            // The initial value, typed by the declaration (`.planned` needs its type), for the
            // attribute's default: what existing objects get when a migration adds it.
            let initial = property.initialValue.map {
                "{ () -> \(property.type.trimmedDescription) in \($0.trimmedDescription) }()"
            }
            return """
                StrataData.Schema.PropertyMetadata(
                    name: "\(property.name)", keypath: \\\(type).\(property.name), defaultValue: \(initial ?? "nil"),
                    metadata: \(described))
                """
        }
        let storage = analysis.properties.map { "_\($0.name) = StrataData._ModelNoStorage()" }
        // The declared initial values, evaluated again (in the class's static context, where
        // they were written) for a model made by its own initializer: the ones the initializer
        // gets are dropped, so that a model read from a store makes no object to hold them.
        let initialValues = analysis.properties.compactMap { property -> String? in
            guard let value = property.initialValue else { return nil }
            return """
                do {
                    let value: \(property.type.trimmedDescription) = \(value.trimmedDescription)
                    backing.setValue(value, at: Self._$layout.slots[\(property.position)])
                }
                """
        }
        return [
            // Read by every accessor. Only the code generated here touches it, and no access to it
            // is held across a call that could reach it again, so release builds need no run-time
            // exclusivity check (a `swift_beginAccess` per property access); debug builds keep it.
            """
            #if !DEBUG
            @exclusivity(unchecked)
            #endif
            private var _$backingData = StrataData._ModelBackingStorage<\(raw: type)>()
            """,
            """
            public var persistentBackingData: StrataData.BackingData<\(raw: type)> {
                get {
                    if let backing = _$backingData.backing { return backing }
                    let backing = Self._$detachedBacking()
                    _$backingData.backing = backing
                    return backing
                }
                set { _$backingData.replace(with: newValue, for: self) }
            }
            """,
            """
            /// A detached object for a model made by its own initializer, holding the declared
            /// initial values.
            private static func _$detachedBacking() -> StrataData.BackingData<\(raw: type)> {
                let backing = StrataData.BackingData<\(raw: type)>.detached()
                \(raw: initialValues.joined(separator: "\n"))
                return backing
            }
            """,
            "public static let _$layout = StrataData.ModelLayout.of(\(raw: type).self)",
            """
            public static var schemaMetadata: [StrataData.Schema.PropertyMetadata] {
                [\(raw: metadata.isEmpty ? "" : "\n" + metadata.joined(separator: ",\n") + "\n")]
            }
            """,
            """
            public required init(backingData: StrataData.BackingData<\(raw: type)>) {
                \(raw: (storage + ["_$backingData.backing = backingData"]).joined(separator: "\n"))
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
            ModelClassAnalysis.isPersisted(variable),
            let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
            let property = ModelClassAnalysis(declaration.memberBlock).property(named: name)
        else { return [] }
        return ["@StrataData._PersistedProperty(\(raw: property.position))"]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self) else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): StrataData.PersistentModel {}")]
    }

    /// The class's name, or `nil` after diagnosing a declaration `@Model` does not apply to.
    private static func className(
        of declaration: some DeclGroupSyntax, diagnosingIn context: some MacroExpansionContext, at node: AttributeSyntax
    ) -> String? {
        guard let decl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass))
            return nil
        }
        if decl.genericParameterClause != nil {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.generic))
            return nil
        }
        return decl.name.text
    }
}
