import CStrataPostgres
import Foundation
import StrataCore

extension PostgresConnection {
    /// Runs `sql`, a `COPY ... FROM STDIN (FORMAT binary)`, with the rows `writeRow` writes for
    /// `0..<rows` (sent in chunks of ``PostgresCopyWriter/chunkSize``); returns how many rows
    /// the server copied. Two round trips whatever the row count, and the server inserts the rows
    /// in batches: the fastest way to load many rows.
    ///
    /// Constraints behave as for an `INSERT`: the primary key at once, deferred constraints at
    /// commit. When `writeRow` throws, the copy is aborted (the transaction then fails, as after
    /// any failed statement) and its error is thrown.
    ///
    /// - Throws: the mapped error of the `COPY` (``PostgresErrorMapping``), or `writeRow`'s.
    @discardableResult
    func copyIn(_ sql: String, rows: Int, _ writeRow: (inout PostgresCopyWriter, Int) throws -> Void) throws -> Int {
        if let begin = pendingBegin {
            _ = endPendingBegin()
            try execute(begin)
        }
        statementsSinceCheckout += 1
        copiesSinceCheckout += 1
        roundTripsSinceCheckout += 2
        let start = PQexec(handle, sql)
        guard let start, PQresultStatus(start) == PGRES_COPY_IN else {
            defer { if let start { PQclear(start) } }
            throw PostgresErrorMapping.error(
                result: start, connection: handle, endpoint: settings.endpoint, action: "starting a COPY", sql: sql)
        }
        PQclear(start)
        var writer = PostgresCopyWriter()
        var failure: (any Error)?
        do {
            for row in 0..<rows {
                try writeRow(&writer, row)
                if writer.isFull { try send(&writer, sql: sql) }
            }
            writer.finish()
            try send(&writer, sql: sql)
        } catch {
            failure = error
        }
        let ended = PQputCopyEnd(handle, failure == nil ? nil : "the client stopped the copy")
        var outcome: StrataError?
        var copied = 0
        while let result = PQgetResult(handle) {
            if outcome == nil {
                if PQresultStatus(result) == PGRES_COMMAND_OK {
                    copied = Int(String(cString: PQcmdTuples(result))) ?? 0
                } else {
                    outcome = PostgresErrorMapping.error(
                        result: result, connection: handle, endpoint: settings.endpoint, action: "copying rows",
                        sql: sql)
                }
            }
            PQclear(result)
        }
        if let failure { throw failure }
        if let outcome { throw outcome }
        guard ended == 1, !isBroken else {
            throw PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "copying rows", sql: sql)
        }
        return copied
    }

    /// Sends the writer's bytes as copy data.
    private func send(_ writer: inout PostgresCopyWriter, sql: String) throws {
        let sent = writer.bytes.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
        }
        guard sent == 1 else {
            throw PostgresErrorMapping.error(
                result: nil, connection: handle, endpoint: settings.endpoint, action: "sending rows to copy", sql: sql)
        }
        writer.removeSent()
    }
}
