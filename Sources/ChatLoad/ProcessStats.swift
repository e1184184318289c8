import Glibc

/// Monotonic nanoseconds.
func monotonicNanoseconds() -> Int64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// CPU seconds (user + system) this process has used.
func processCPUSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// CPU nanoseconds (user + system) the calling thread has used (`RUSAGE_THREAD`, which
/// Glibc's module does not export).
func threadCPUNanoseconds() -> Int64 {
  var usage = rusage()
  getrusage(1, &usage)
  return Int64((seconds(usage.ru_utime) + seconds(usage.ru_stime)) * 1e9)
}

private func seconds(_ value: timeval) -> Double {
  Double(value.tv_sec) + Double(value.tv_usec) / 1e6
}

/// CPU seconds (user + system) process `pid` has used, from `/proc/PID/stat`; nil when unknown.
func processCPUSeconds(pid: Int32) -> Double? {
  guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
  defer { fclose(file) }
  var line = [CChar](repeating: 0, count: 4096)
  guard fgets(&line, Int32(line.count), file) != nil else { return nil }
  let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  // The command name, in parentheses, may hold spaces: split after its closing one.
  guard let close = text.lastIndex(of: ")") else { return nil }
  let fields = text[text.index(after: close)...].split(separator: " ")
  // After the name: state is field 3 of the whole line, utime 14 and stime 15.
  guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
    return nil
  }
  return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The 1-minute load average from `/proc/loadavg`; nil when unknown.
func loadAverage() -> Double? {
  guard let file = fopen("/proc/loadavg", "r") else { return nil }
  defer { fclose(file) }
  var line = [CChar](repeating: 0, count: 128)
  guard fgets(&line, Int32(line.count), file) != nil else { return nil }
  let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  return text.split(separator: " ").first.flatMap { Double($0) }
}
