// strata-migration-probe: a child process for the migration crash test.
//
//   strata-migration-probe migrate URL MODEL_DIR [BATCH]
//   strata-migration-probe start URL MODEL_DIR       (loads everything, migrates nothing)
//
// migrates the store at URL to the current version of MODEL_DIR (a NAME.stratamodel directory)
// with the built-in persistent backends (PostgreSQL's on a server the URL names), and prints "migrated" when done. The test kills it
// with SIGKILL at random moments.

import Foundation
import StrataCore
import StrataLMDB
import StrataMigrations
import StrataPostgres
import StrataSQLite
import StrataXML

let arguments = CommandLine.arguments
guard arguments.count >= 4, arguments[1] == "migrate" || arguments[1] == "start" else {
    FileHandle.standardError.write(Data("usage: strata-migration-probe migrate URL MODEL_DIR [BATCH]\n".utf8))
    exit(2)
}
do {
    let registry = StoreRegistry()
    registry.register(SQLiteBackend())
    registry.register(LMDBBackend())
    registry.register(XMLBackend())
    registry.register(PostgresBackend())
    let url = try StoreURL.parse(arguments[2])
    let versions = try VersionedModel(directory: URL(fileURLWithPath: arguments[3]))
    let batch = arguments.count > 4 ? Int(arguments[4]) ?? 1_000 : 1_000
    let migrator = try StoreMigrator(versions: versions, registry: registry, batchSize: batch)
    _ = try migrator.needsMigration(storeAt: url)
    guard arguments[1] == "migrate" else { exit(0) }
    // The test reads this line to tell kills during the migration from kills during start-up.
    FileHandle.standardOutput.write(Data("start\n".utf8))
    try migrator.migrate(storeAt: url)
    FileHandle.standardOutput.write(Data("migrated\n".utf8))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
