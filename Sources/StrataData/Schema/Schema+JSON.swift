import Foundation
import StrataCore

extension Schema {
    /// The schema as a Strata JSON model file (the format of `docs/ModelFormat.md`), whose
    /// version hash is the schema's: a store a ``ModelContainer`` made with this schema opens
    /// with the file, in the `strata` tool (`strata inspect STORE --model trips.json`) or from a
    /// program that uses Strata's engine, and a store made from the file opens with this schema.
    ///
    /// ```swift
    /// try Schema([Trip.self], version: Schema.Version(1, 0, 0)).modelJSON()
    ///     .write(to: URL(fileURLWithPath: "trips.json"))
    /// ```
    ///
    /// The file lists each model's stored properties in declaration order, with the attribute
    /// type each Swift type is stored as (an `Int8` is an `integer16`, an enum its raw value's
    /// type, another `Codable` type `binary`), the inverses, delete rules, count bounds,
    /// `.unique` and `#Unique` constraints, the `#Index` indexes (each named after its attributes,
    /// `startDate_endDate`) and `originalName`s, and each attribute's default (the property's
    /// initial value, when a file can hold it). Its `version` is the schema's version (`"1.0.0"`).
    ///
    /// The bytes are stable: the same schema gives the same file.
    ///
    /// - Throws: the error a ``ModelContainer`` would throw for this schema (a property of a type
    ///   a model cannot store, a relationship without an inverse).
    public func modelJSON() throws -> Data {
        if let problem { throw problem }
        return model.jsonData()
    }
}
