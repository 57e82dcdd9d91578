import Foundation
import StrataCore
import StrataEngine

// The attribute accessors `@Model` generates call these, with the property's slot (its index
// among the model's attributes, from `ModelLayout/slots`). The overload is chosen by the
// property's type at compile time: values stored as is, enumerations stored as their raw value,
// other `Codable` values stored as JSON.

extension BackingData {
    // MARK: Stored as is

    /// The value of attribute slot `slot`.
    @inlinable
    public func getValue<Value: PersistentAttributeValue & Codable>(at slot: Int) -> Value {
        let stored = storedValue(at: slot)
        guard let value = Value(storedValue: stored) else { typeFailure(slot: slot, value: stored, type: Value.self) }
        return value
    }

    /// Sets attribute slot `slot`.
    @inlinable
    public func setValue<Value: PersistentAttributeValue & Codable>(_ newValue: Value, at slot: Int) {
        setStoredValue(newValue.storedValue, at: slot)
    }

    // MARK: Stored as the raw value

    /// The value of attribute slot `slot`, an enumeration stored as its raw value.
    @inlinable
    public func getValue<Value: RawRepresentable & Codable>(at slot: Int) -> Value
    where Value.RawValue: PersistentAttributeValue {
        let stored = storedValue(at: slot)
        guard let raw = Value.RawValue(storedValue: stored), let value = Value(rawValue: raw) else {
            typeFailure(slot: slot, value: stored, type: Value.self)
        }
        return value
    }

    /// The value of attribute slot `slot`, an optional enumeration stored as its raw value.
    @inlinable
    public func getValue<Value: RawRepresentable & Codable>(at slot: Int) -> Value?
    where Value.RawValue: PersistentAttributeValue {
        let stored = storedValue(at: slot)
        if stored.isNull { return nil }
        guard let raw = Value.RawValue(storedValue: stored), let value = Value(rawValue: raw) else {
            typeFailure(slot: slot, value: stored, type: Value.self)
        }
        return value
    }

    /// Sets attribute slot `slot` to an enumeration's raw value.
    @inlinable
    public func setValue<Value: RawRepresentable & Codable>(_ newValue: Value, at slot: Int)
    where Value.RawValue: PersistentAttributeValue {
        setStoredValue(newValue.rawValue.storedValue, at: slot)
    }

    /// Sets attribute slot `slot` to an optional enumeration's raw value.
    @inlinable
    public func setValue<Value: RawRepresentable & Codable>(_ newValue: Value?, at slot: Int)
    where Value.RawValue: PersistentAttributeValue {
        setStoredValue(newValue?.rawValue.storedValue ?? .null, at: slot)
    }

    // MARK: Stored as JSON

    /// The value of attribute slot `slot`, a `Codable` value stored as JSON.
    @inlinable
    public func getValue<Value: Codable>(at slot: Int) -> Value {
        let stored = storedValue(at: slot)
        let data: Data
        switch stored {
        case .binary(let json): data = json
        case .null: data = Data("null".utf8)
        default: typeFailure(slot: slot, value: stored, type: Value.self)
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            preconditionFailure(
                "\(objectID): the JSON stored in attribute slot \(slot) is not a \(Value.self): \(error)")
        }
    }

    /// Sets attribute slot `slot` to a `Codable` value, as JSON (`nil` is stored as null).
    @inlinable
    public func setValue<Value: Codable>(_ newValue: Value, at slot: Int) {
        setStoredValue(Self.json(newValue), at: slot)
    }

    @usableFromInline
    static func json<Value: Encodable>(_ value: Value) -> StrataCore.Value {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let data = try encoder.encode(value)
            return data.elementsEqual("null".utf8) ? .null : .binary(data)
        } catch {
            preconditionFailure("\(value) cannot be encoded as JSON: \(error)")
        }
    }

    // MARK: Slots

    /// The stored value of attribute slot `slot` (inlinable, as the engine's slot read is, so
    /// that an accessor reads the slot with no call).
    @inlinable
    func storedValue(at slot: Int) -> StrataCore.Value {
        value(atSlot: slot)
    }

    /// Sets the stored value of attribute slot `slot`: in the object itself while it is
    /// detached, else through its context.
    @usableFromInline
    func setStoredValue(_ value: StrataCore.Value, at slot: Int) {
        guard isUnattached else {
            setValue(value, atSlot: slot)
            return
        }
        do { try setDetachedValue(value, at: slot) } catch { preconditionFailure("\(error)") }
    }

    @usableFromInline
    func typeFailure<T>(slot: Int, value: StrataCore.Value, type: T.Type) -> Never {
        preconditionFailure(
            "\(objectID).\(entity.attributes[slot].name) holds \(value), which is not a \(T.self): the model and the store disagree"
        )
    }
}
