import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor` on an actor (StrataData): `modelExecutor`, `modelContainer`,
/// `init(modelContainer:)` making a context of its own for the actor, and the conformance to
/// `ModelActor`. The members take the actor's access level, so a public actor conforms.
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actor = declaration.as(ActorDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelActorDiagnostic.notAnActor))
            return []
        }
        let access = accessPrefix(of: actor.modifiers)
        return [
            "\(raw: access)nonisolated let modelExecutor: any StrataData.ModelExecutor",
            "\(raw: access)nonisolated let modelContainer: StrataData.ModelContainer",
            """
            \(raw: access)init(modelContainer: StrataData.ModelContainer) {
                let modelContext = StrataData.ModelContext(modelContainer)
                self.modelExecutor = StrataData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): StrataData.ModelActor {}")]
    }

    /// `public `, `package ` or nothing: the access of the actor's generated members (an open
    /// declaration does not exist for actors; `private` and `fileprivate` actors keep the
    /// default, which is already as visible as they are).
    private static func accessPrefix(of modifiers: DeclModifierListSyntax) -> String {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }
}

/// What `@ModelActor` reports about a declaration it does not apply to.
enum ModelActorDiagnostic: String, DiagnosticMessage {
    case notAnActor

    var message: String {
        switch self {
        case .notAnActor: "@ModelActor applies to an actor"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "StrataData.ModelActor", id: rawValue) }

    var severity: DiagnosticSeverity { .error }
}
