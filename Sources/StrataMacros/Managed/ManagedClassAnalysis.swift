import SwiftDiagnostics
import SwiftSyntax

/// The stored properties of a `@Managed` class, numbered as the engine expects, and what is
/// wrong with the ones that cannot be managed.
struct ManagedClassAnalysis {
    enum Kind { case attribute, relationship }

    struct Property {
        let name: String
        let type: TypeSyntax
        let kind: Kind
        /// The slot: the index among the class's attributes, or among its relationships.
        let slot: Int
        /// The arguments written in `@Attribute(...)` or `@Relationship(...)`, passed on as they are.
        let arguments: LabeledExprListSyntax?
    }

    struct Problem {
        let node: Syntax
        let message: ManagedDiagnostic
    }

    private(set) var properties: [Property] = []
    private(set) var problems: [Problem] = []

    init(_ members: MemberBlockSyntax) {
        var attributeCount = 0
        var relationshipCount = 0
        for member in members.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), Self.isInstanceStored(variable) else {
                continue
            }
            if Self.marker(named: "Transient", in: variable) != nil { continue }
            guard variable.bindingSpecifier.tokenKind == .keyword(.var) else {
                problems.append(Problem(node: Syntax(variable.bindingSpecifier), message: .constant))
                continue
            }
            guard variable.bindings.count == 1, let binding = variable.bindings.first,
                let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
            else {
                problems.append(Problem(node: Syntax(variable), message: .severalBindings))
                continue
            }
            guard let type = binding.typeAnnotation?.type else {
                problems.append(Problem(node: Syntax(binding.pattern), message: .missingType(name)))
                continue
            }
            if let initializer = binding.initializer {
                problems.append(Problem(node: Syntax(initializer), message: .initialValue(name)))
                continue
            }
            if let relationship = Self.marker(named: "Relationship", in: variable) {
                properties.append(
                    Property(
                        name: name, type: type, kind: .relationship, slot: relationshipCount,
                        arguments: relationship.arguments?.as(LabeledExprListSyntax.self)))
                relationshipCount += 1
            } else {
                let attribute = Self.marker(named: "Attribute", in: variable)
                properties.append(
                    Property(
                        name: name, type: type, kind: .attribute, slot: attributeCount,
                        arguments: attribute?.arguments?.as(LabeledExprListSyntax.self)))
                attributeCount += 1
            }
        }
    }

    /// The name of a variable declaration that declares one.
    static func singleName(of variable: VariableDeclSyntax) -> String? {
        guard variable.bindings.count == 1 else { return nil }
        return variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
    }

    /// Whether `variable` is an instance property with storage: not static, not lazy, not
    /// computed (observers alone still mean storage).
    static func isInstanceStored(_ variable: VariableDeclSyntax) -> Bool {
        for modifier in variable.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.class), .keyword(.lazy): return false
            default: continue
            }
        }
        for binding in variable.bindings {
            guard let accessors = binding.accessorBlock?.accessors else { continue }
            switch accessors {
            case .getter: return false
            case .accessors(let list):
                let observersOnly = list.allSatisfy {
                    $0.accessorSpecifier.tokenKind == .keyword(.willSet)
                        || $0.accessorSpecifier.tokenKind == .keyword(.didSet)
                }
                if !observersOnly { return false }
            }
        }
        return true
    }

    /// The attribute `@name` (or `@Module.name`) on `variable`.
    static func marker(named name: String, in variable: VariableDeclSyntax) -> AttributeSyntax? {
        for element in variable.attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let written = attribute.attributeName.trimmedDescription
            if written == name || written.hasSuffix(".\(name)") { return attribute }
        }
        return nil
    }
}

/// What `@Managed` reports about a class it cannot serve.
enum ManagedDiagnostic: DiagnosticMessage {
    case notAClass
    case notAManagedObject
    case constant
    case severalBindings
    case missingType(String)
    case initialValue(String)

    var message: String {
        switch self {
        case .notAClass: "@Managed applies to a class that inherits from ManagedObject"
        case .notAManagedObject:
            "@Managed needs ManagedObject as the superclass, written first in the inheritance clause"
        case .constant: "a managed property is a 'var'; mark a constant that is not stored in the model @Transient"
        case .severalBindings: "declare each managed property in a 'var' of its own"
        case .missingType(let name): "managed property '\(name)' needs a type annotation"
        case .initialValue(let name):
            "managed property '\(name)' takes its default from the model: write @Attribute(default: ...) instead of an initial value"
        }
    }

    var diagnosticID: MessageID {
        let id: String =
            switch self {
            case .notAClass: "notAClass"
            case .notAManagedObject: "notAManagedObject"
            case .constant: "constant"
            case .severalBindings: "severalBindings"
            case .missingType: "missingType"
            case .initialValue: "initialValue"
            }
        return MessageID(domain: "StrataMacros.Managed", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
