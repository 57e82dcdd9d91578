import SwiftDiagnostics
import SwiftSyntax

/// The stored properties of a `@Model` class (StrataData), numbered in declaration order, and
/// what is wrong with the ones a model cannot store.
///
/// Whether a property is an attribute or a relationship depends on its type, which a macro
/// cannot see: the number is the property's position in `schemaMetadata`, which the model's
/// layout maps to its slot once, when the entity is built.
struct ModelClassAnalysis {
    struct Property {
        let name: String
        let type: TypeSyntax
        /// The position in `schemaMetadata`.
        let position: Int
        /// `Schema.Attribute(...)` or `Schema.Relationship(...)` with the marker's arguments, or `nil`.
        let metadata: ExprSyntax?
        /// The initial value the declaration gives, if any (`[]` in `var items: [Item] = []`).
        let initialValue: ExprSyntax?
        /// Whether `@Relationship` marks it.
        let isMarkedRelationship: Bool
    }

    struct Problem {
        let node: Syntax
        let message: any DiagnosticMessage
    }

    private(set) var properties: [Property] = []
    private(set) var problems: [Problem] = []

    init(_ members: MemberBlockSyntax) {
        for member in members.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), Self.isPersisted(variable) else { continue }
            guard variable.bindings.count == 1, let binding = variable.bindings.first,
                let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
            else {
                problems.append(Problem(node: Syntax(variable), message: ModelDiagnostic.severalBindings))
                continue
            }
            guard let type = binding.typeAnnotation?.type else {
                problems.append(Problem(node: Syntax(binding.pattern), message: ModelDiagnostic.missingType(name)))
                continue
            }
            var metadata: ExprSyntax?
            let relationship = Self.marker(named: "Relationship", in: variable)
            if let marker = relationship {
                metadata = Self.call("Relationship", marker)
            } else if let marker = Self.marker(named: "Attribute", in: variable) {
                metadata = Self.call("Attribute", marker)
            }
            properties.append(
                Property(
                    name: name, type: type, position: properties.count, metadata: metadata,
                    initialValue: binding.initializer?.value, isMarkedRelationship: relationship != nil))
        }
    }

    /// What is wrong with the key paths of the class's `#Unique` and `#Index` (their shape is
    /// the macros' own concern): a property that is not stored, a relationship, another model's
    /// type, a macro written twice.
    func keyPathListProblems(_ members: MemberBlockSyntax, model: String) -> [Problem] {
        var problems: [Problem] = []
        var seen: Set<String> = []
        for member in members.members {
            guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self),
                ["Unique", "Index"].contains(expansion.macroName.text)
            else { continue }
            let lists = KeyPathLists(expansion)
            if !seen.insert(lists.macro).inserted {
                problems.append(
                    Problem(node: Syntax(expansion), message: KeyPathListDiagnostic.declaredTwice(lists.macro)))
            }
            if let written = lists.modelType, written != model {
                problems.append(
                    Problem(
                        node: Syntax(expansion),
                        message: KeyPathListDiagnostic.otherModel(lists.macro, written: written, model: model)))
            }
            for entry in lists.lists.joined() {
                guard let property = property(named: entry.name) else {
                    problems.append(
                        Problem(
                            node: entry.node,
                            message: KeyPathListDiagnostic.notStored(lists.macro, property: entry.name, model: model)))
                    continue
                }
                if property.isMarkedRelationship {
                    problems.append(
                        Problem(
                            node: entry.node,
                            message: KeyPathListDiagnostic.relationship(lists.macro, property: entry.name)))
                }
            }
        }
        return problems
    }

    /// The property named `name`, if it is stored by the model.
    func property(named name: String) -> Property? {
        properties.first { $0.name == name }
    }

    /// Whether `variable` is a stored instance `var` the model stores: not static, not
    /// `@Transient`, without accessors of its own.
    static func isPersisted(_ variable: VariableDeclSyntax) -> Bool {
        guard variable.bindingSpecifier.tokenKind == .keyword(.var) else { return false }
        if variable.modifiers.contains(where: {
            [.keyword(.static), .keyword(.class), .keyword(.lazy)].contains($0.name.tokenKind)
        }) {
            return false
        }
        if marker(named: "Transient", in: variable) != nil { return false }
        return variable.bindings.allSatisfy { $0.accessorBlock == nil }
    }

    /// The attribute `@name` (or `@StrataData.name`) on `variable`.
    static func marker(named name: String, in variable: VariableDeclSyntax) -> AttributeSyntax? {
        for element in variable.attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let written = attribute.attributeName.trimmedDescription
            if written == name || written == "StrataData.\(name)" { return attribute }
        }
        return nil
    }

    /// `StrataData.Schema.Kind(arguments)`.
    private static func call(_ kind: String, _ marker: AttributeSyntax) -> ExprSyntax {
        let arguments = marker.arguments?.as(LabeledExprListSyntax.self)?.trimmedDescription ?? ""
        return "StrataData.Schema.\(raw: kind)(\(raw: arguments))"
    }
}

/// What `@Model` reports.
enum ModelDiagnostic: DiagnosticMessage {
    case notAClass
    case generic
    case severalBindings
    case missingType(String)

    var message: String {
        switch self {
        case .notAClass: "@Model applies to a final class"
        case .generic: "@Model does not apply to a generic class: a model's entity has one layout"
        case .severalBindings: "declare one stored property per 'var' in a @Model class"
        case .missingType(let name): "give '\(name)' a type annotation: @Model stores it by its declared type"
        }
    }

    var diagnosticID: MessageID {
        let id =
            switch self {
            case .notAClass: "notAClass"
            case .generic: "generic"
            case .severalBindings: "severalBindings"
            case .missingType: "missingType"
            }
        return MessageID(domain: "StrataData.Model", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
