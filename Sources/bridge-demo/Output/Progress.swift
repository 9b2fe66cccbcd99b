/// Progress lines for work that takes more than a moment, on standard error so that standard
/// output keeps only the results (and stays valid JSON with `--json`).
enum Progress {
  /// Reports a step, e.g. `bridge-demo: GET http://127.0.0.1:8080/questions?site=… …`.
  static func report(_ step: String) {
    Console.error("bridge-demo: \(step) …")
  }
}
