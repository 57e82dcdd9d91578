/// The program's own checks: each prints a line, and a failed one makes the program exit 1.
struct PlannerChecks {
    private(set) var passed = 0
    private(set) var failures: [String] = []

    /// Records whether `condition` holds, printing `what` either way.
    mutating func expect(_ condition: Bool, _ what: String) {
        if condition {
            passed += 1
            print("  ok: \(what)")
        } else {
            failures.append(what)
            print("  FAILED: \(what)")
        }
    }
}
