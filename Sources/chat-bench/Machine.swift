import CSQLite
import Foundation
import Glibc

/// The machine a run measured, written next to its figures.
struct MachineDescription: Codable, Sendable {
  var cpu: String
  var cores: Int
  var memoryGiB: Double
  var kernel: String
  var sqlite: String
  var fileSystem: String
  /// The 1-minute load average when the run started and ended: other engineers' builds share
  /// these cores.
  var loadAtStart: Double
  var loadAtEnd: Double = 0
  var openFilesLimit: Int

  static func current(folder: String) -> MachineDescription {
    let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
      cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
      .flatMap { $0.split(separator: ":", maxSplits: 1).last }
      .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    var name = utsname()
    uname(&name)
    let kernel = withUnsafeBytes(of: &name.release) {
      String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    return MachineDescription(
      cpu: model, cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
      memoryGiB: Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824,
      kernel: kernel, sqlite: String(cString: sqlite3_libversion()),
      fileSystem: fileSystem(of: folder), loadAtStart: loadAverage(),
      openFilesLimit: Int(limit.rlim_cur))
  }

  static func loadAverage() -> Double {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return Double(text.split(separator: " ").first ?? "") ?? 0
  }

  /// The type and device of the file system holding `path`, from /proc/mounts.
  static func fileSystem(of path: String) -> String {
    let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
    var best: (point: String, description: String) = ("", "unknown")
    for line in mounts.split(separator: "\n") {
      let fields = line.split(separator: " ")
      guard fields.count >= 3 else { continue }
      let point = String(fields[1])
      if path.hasPrefix(point), point.count > best.point.count {
        best = (point, "\(fields[2]) on \(fields[0]) (\(point))")
      }
    }
    return best.description
  }

  var summary: String {
    String(
      format: "%@, %d cores, %.0f GiB, Linux %@, SQLite %@, %@; load %.2f → %.2f",
      cpu, cores, memoryGiB, kernel, sqlite, fileSystem, loadAtStart, loadAtEnd)
  }
}

/// Raises the soft limit on open files to `wanted` (at most the hard limit); returns the limit
/// now in force.
@discardableResult
func raiseOpenFilesLimit(to wanted: Int) -> Int {
  var limit = rlimit()
  let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
  getrlimit(resource, &limit)
  if limit.rlim_cur < rlim_t(wanted) {
    limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
    setrlimit(resource, &limit)
    getrlimit(resource, &limit)
  }
  return Int(limit.rlim_cur)
}
