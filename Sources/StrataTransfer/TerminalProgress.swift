import Foundation
import StrataCore

/// Progress of long work on standard error, for a person watching a terminal (the `strata`
/// tool's import and copy): one line,
/// rewritten at most ten times a second, with the rate and the time left (`importing: 42,000 of
/// 100,000 (42%), 35,100/s, 2 s left`). Silent when standard error is not a terminal (a pipe, a
/// file, CI) or when the command prints JSON.
package final class TerminalProgress {
    private let isShown: Bool
    private let clock: () -> TimeInterval
    private var phase = ""
    private var phaseStart: TimeInterval = 0
    private var lastShown: TimeInterval = -1
    private var wroteLine = false
    private let write: (String) -> Void

    /// A progress line on standard error, shown when it is a terminal and `json` is off.
    package convenience init(json: Bool) {
        self.init(isShown: !json && isatty(STDERR_FILENO) == 1) {
            FileHandle.standardError.write(Data($0.utf8))
        }
    }

    /// A progress line written through `write`, for tests; `clock` gives seconds.
    package init(
        isShown: Bool, clock: @escaping () -> TimeInterval = { ProcessInfo.processInfo.systemUptime },
        write: @escaping (String) -> Void
    ) {
        self.isShown = isShown
        self.clock = clock
        self.write = write
    }

    /// Shows `progress`, unless a line was shown less than 0.1 s ago in the same phase and the
    /// work is not done.
    package func show(_ progress: StoreProgress) {
        guard isShown else { return }
        let now = clock()
        if progress.phase != phase {
            phase = progress.phase
            phaseStart = now
        } else if now - lastShown < 0.1 && progress.completed < progress.total {
            return
        }
        lastShown = now
        write("\r" + Self.line(progress, elapsed: now - phaseStart) + "\u{1B}[K")
        wroteLine = true
    }

    /// Ends the progress line, so that what is printed next starts on a line of its own.
    package func finish() {
        if wroteLine { write("\n") }
        wroteLine = false
    }

    /// `phase: completed of total (p%), rate/s, t left`; what cannot be known yet is left out.
    package static func line(_ progress: StoreProgress, elapsed: TimeInterval) -> String {
        var text = "\(progress.phase): \(grouped(progress.completed))"
        if progress.total > 0 {
            let percent = min(100, progress.completed * 100 / progress.total)
            text += " of \(grouped(progress.total)) (\(percent)%)"
        }
        guard elapsed >= 0.5, progress.completed > 0 else { return text }
        let rate = Double(progress.completed) / elapsed
        text += ", \(grouped(Int(rate)))/s"
        if progress.total > progress.completed {
            text += ", " + duration(Double(progress.total - progress.completed) / rate) + " left"
        }
        return text
    }

    /// `1234567` as `1,234,567`.
    package static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return number < 0 ? "-" + result : result
    }

    /// `42 s`, `3 min 5 s`, `2 h 10 min`.
    package static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }
}
