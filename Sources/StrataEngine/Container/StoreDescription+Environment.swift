import StrataCore

extension StoreDescription {
    /// The variable that overrides the URL of a container's primary store: `STRATA_STORE`.
    public static let environmentVariable = "STRATA_STORE"

    /// The variable that overrides the URL of the store of `configuration`:
    /// `STRATA_STORE_` followed by the configuration name in upper case, every character other
    /// than a letter or digit written `_` (`"Archive"` gives `STRATA_STORE_ARCHIVE`).
    public static func environmentVariable(forConfiguration configuration: String) -> String {
        environmentVariable + "_"
            + String(
                configuration.uppercased().unicodeScalars.map { scalar in
                    (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") ? Character(scalar) : "_"
                })
    }

    /// The index of the primary description: the first whose configuration is
    /// ``Model/defaultConfiguration``, else the first; `nil` for no descriptions.
    public static func primaryIndex(of descriptions: [StoreDescription]) -> Int? {
        descriptions.firstIndex { $0.configuration == Model.defaultConfiguration } ?? (descriptions.isEmpty ? nil : 0)
    }

    /// `descriptions` with the store URLs the environment overrides, so that an operator switches
    /// backend or location without recompiling:
    ///
    /// - `STRATA_STORE=URL` replaces the URL of the primary description (``primaryIndex(of:)``):
    ///   the store of the default configuration, else the first store. Other stores keep theirs.
    /// - `STRATA_STORE_<CONFIGURATION>=URL` (``environmentVariable(forConfiguration:)``) replaces
    ///   the URL of the store of that configuration, and wins over `STRATA_STORE` for it.
    /// - Only the URL changes. When its scheme changes, the description's backend ``options``
    ///   are dropped (they belong to the other backend); read-only, create, migrate and infer
    ///   settings stay. An empty variable is ignored, and so is a variable naming a
    ///   configuration no description has.
    /// - With a `registry`, the backend of the new URL's scheme is looked up there and checks
    ///   the options the description keeps, so a bad variable is named at once.
    ///
    /// - Throws: ``StrataError/Code/invalidStoreURL`` naming the variable and its value;
    ///   with a `registry`, ``StrataError/Code/unknownStoreScheme`` or
    ///   ``StrataError/Code/invalidOption`` naming the variable.
    public static func applyingEnvironment(
        _ environment: [String: String],
        to descriptions: [StoreDescription],
        registry: StoreRegistry? = nil
    ) throws -> [StoreDescription] {
        var result = descriptions
        func override(_ index: Int, with variable: String) throws {
            guard let text = environment[variable], !text.isEmpty else { return }
            do {
                let url = try StoreURL.parse(text)
                if url.scheme != result[index].url.scheme { result[index].options = [:] }
                try registry?.backend(for: url.scheme).checkOptions(result[index].options, for: url)
                result[index].url = url
            } catch var error as StrataError {
                error.message = "the environment variable \(variable): \(error.message)"
                error.location["environment"] = variable
                throw error
            }
        }
        if let primary = primaryIndex(of: result) { try override(primary, with: environmentVariable) }
        for index in result.indices where result[index].configuration != Model.defaultConfiguration {
            try override(index, with: environmentVariable(forConfiguration: result[index].configuration))
        }
        return result
    }
}
