import SwiftSyntax
import SwiftSyntaxMacros

/// `@_ManagedSlot(attribute: n)` or `@_ManagedSlot(relationship: n)`, which `@Managed` attaches to
/// each stored property: the getter and setter that read and write slot `n` through the
/// engine's typed slot API (`ManagedObject.attributeValue(atSlot:)` and its siblings). The value
/// type is inferred from the property's.
public struct ManagedSlotMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first,
            let label = argument.label?.text
        else { return [] }
        let slot = argument.expression.trimmedDescription
        if label == "relationship" {
            return [
                "get { self.relationshipValue(atSlot: \(raw: slot)) }",
                "set { self.setRelationshipValue(newValue, atSlot: \(raw: slot)) }",
            ]
        }
        return [
            "get { self.attributeValue(atSlot: \(raw: slot)) }",
            "set { self.setAttributeValue(newValue, atSlot: \(raw: slot)) }",
        ]
    }
}
