import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute(...)`, `@Relationship(...)` and `@Transient` on a property of a `@Managed` class:
/// markers that expand to nothing. The class macro reads them (and passes their arguments on to
/// the class's property declarations, where the compiler checks them).
public struct PropertyMarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] { [] }
}
