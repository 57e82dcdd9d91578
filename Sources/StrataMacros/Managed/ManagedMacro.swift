import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Managed` on a `ManagedObject` subclass: turns each stored property into accessors that read
/// and write the object's value slots by a fixed index, and declares the class's properties for
/// model derivation and binding.
///
/// ```swift
/// @Managed final class Employee: ManagedObject {
///     var name: String
///     @Attribute(default: 1.7) var height: Double
///     @Relationship(inverse: "employees") var department: Department?
/// }
/// ```
///
/// expands to (member attributes and one member):
///
/// ```swift
/// @_ManagedSlot(attribute: 0) var name: String
/// @_ManagedSlot(attribute: 1) @Attribute(default: 1.7) var height: Double
/// @_ManagedSlot(relationship: 0) @Relationship(inverse: "employees") var department: Department?
/// override class var declaredProperties: [DeclaredProperty] {
///     [
///         .attribute("name", String.self),
///         .attribute("height", Double.self, default: 1.7),
///         .relationship("department", Department?.self, inverse: "employees"),
///     ]
/// }
/// ```
///
/// Attributes and relationships are numbered apart, in declaration order: that number is the
/// property's *slot*, which the engine maps to the entity's index once per class and entity.
public struct ManagedMacro: MemberMacro, MemberAttributeMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ManagedDiagnostic.notAClass))
            return []
        }
        guard inheritsFromManagedObject(classDecl) else {
            context.diagnose(Diagnostic(node: classDecl.name, message: ManagedDiagnostic.notAManagedObject))
            return []
        }
        let analysis = ManagedClassAnalysis(classDecl.memberBlock)
        for problem in analysis.problems {
            context.diagnose(Diagnostic(node: problem.node, message: problem.message))
        }
        let entries = analysis.properties.map { property -> String in
            var arguments = ["\"\(property.name)\"", "\(property.type.trimmedDescription).self"]
            if let extra = property.arguments, !extra.isEmpty {
                arguments.append(extra.trimmedDescription)
            }
            let factory = property.kind == .attribute ? "attribute" : "relationship"
            return "        .\(factory)(\(arguments.joined(separator: ", "))),\n"
        }
        let list = entries.isEmpty ? "[]" : "[\n\(entries.joined())    ]"
        let declared: DeclSyntax = """
            /// The stored properties `@Managed` found, in declaration order.
            \(raw: accessModifier(of: classDecl))override class var declaredProperties: [DeclaredProperty] {
                \(raw: list)
            }
            """
        return [declared]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self), inheritsFromManagedObject(classDecl),
            let variable = member.as(VariableDeclSyntax.self), let name = ManagedClassAnalysis.singleName(of: variable)
        else { return [] }
        let analysis = ManagedClassAnalysis(classDecl.memberBlock)
        guard let property = analysis.properties.first(where: { $0.name == name }) else { return [] }
        let label = property.kind == .attribute ? "attribute" : "relationship"
        return ["@_ManagedSlot(\(raw: label): \(raw: property.slot))"]
    }

    /// Whether the class names `ManagedObject` (or `Strata.ManagedObject`,
    /// `StrataEngine.ManagedObject`) as its superclass: `@Managed` numbers slots from zero, so the
    /// class must be the first typed one in its hierarchy.
    static func inheritsFromManagedObject(_ classDecl: ClassDeclSyntax) -> Bool {
        guard let first = classDecl.inheritanceClause?.inheritedTypes.first else { return false }
        let name = first.type.trimmedDescription
        return name == "ManagedObject" || name == "StrataEngine.ManagedObject" || name == "Strata.ManagedObject"
    }

    /// The access modifier an override in `classDecl` needs: as visible as the class.
    static func accessModifier(of classDecl: ClassDeclSyntax) -> String {
        for modifier in classDecl.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }
}
