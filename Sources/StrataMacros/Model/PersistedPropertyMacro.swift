import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty(position)`, which `@Model` puts on each stored property: accessors that
/// read and write the property's slot of the backing object (its position mapped by the
/// model's layout, built once), and the property's zero-sized storage, which the `init`
/// accessor initializes so that the class's own initializers can set the property. The first
/// value an initializer sets makes the model's detached object, with the declared initial values.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let name = propertyName(declaration), let position = position(node) else { return [] }
        let slot = "Self._$layout.slots[\(position)]"
        // A declared initial value reaches the init accessor before any initializer's body
        // runs, when no backing object exists yet: the model's detached object holds it from
        // the start instead (see `_$detachedBacking()`), and `init(backingData:)` never needs it.
        let initialization =
            hasInitialValue(declaration)
            ? "if let backing = _$backingData.backing { backing.setValue(initialValue, at: \(slot)) }"
            : """
            if _$backingData.backing == nil { _$backingData.backing = Self._$detachedBacking() }
            _$backingData.backing.unsafelyUnwrapped.setValue(initialValue, at: \(slot))
            """
        return [
            """
            @storageRestrictions(accesses: _$backingData, initializes: _\(raw: name))
            init(initialValue) {
                \(raw: initialization)
                _\(raw: name) = StrataData._ModelNoStorage()
            }
            """,
            "get { persistentBackingData.getValue(at: \(raw: slot)) }",
            "set { persistentBackingData.setValue(newValue, at: \(raw: slot)) }",
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let name = propertyName(declaration) else { return [] }
        return ["private var _\(raw: name): StrataData._ModelNoStorage"]
    }

    private static func hasInitialValue(_ declaration: some DeclSyntaxProtocol) -> Bool {
        declaration.as(VariableDeclSyntax.self)?.bindings.first?.initializer != nil
    }

    private static func propertyName(_ declaration: some DeclSyntaxProtocol) -> String? {
        declaration.as(VariableDeclSyntax.self)?.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier
            .text
    }

    private static func position(_ node: AttributeSyntax) -> Int? {
        guard let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first?.expression else { return nil }
        return Int(argument.trimmedDescription)
    }
}
