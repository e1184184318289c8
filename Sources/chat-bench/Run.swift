import ChatLoad
import Foundation
import Support

/// One run of every figure asked for, in order, sharing the client database B1 builds.
///
/// Each figure runs with a time limit (`FigureLimits`). One that fails or runs out is reported
/// failed (the table's `failed:` lines, the JSON's `failed`) and the others keep their
/// results; a figure out of time has the processes it started killed and is left behind. The
/// JSON is written again each time a figure ends, so a run stopped half way keeps what it
/// measured. The exit status is 1 when a figure failed.
struct Run {
  let options: ChatBench.Options

  /// What one figure adds to the report.
  struct Part: Sendable {
    var rows: [ResultRow] = []
    var notes: [String] = []
    var skipped: [String] = []
  }

  func measure() async throws -> Int32 {
    let started = Nanos.now()
    let folder = NSTemporaryDirectory() + "chat-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { if !options.keep { try? FileManager.default.removeItem(atPath: folder) } }
    let filesLimit = raiseOpenFilesLimit(to: 65_536)
    var report = Report(
      mode: options.quick ? "quick" : "full",
      startedAt: ISO8601DateFormatter().string(from: Date()),
      machine: MachineDescription.current(folder: folder))
    progress("chat-bench \(report.mode) on \(report.machine.summary)")
    progress("open files limit: \(filesLimit)")
    let limits = FigureLimits(quick: options.quick, override: options.timeLimit)
    let jsonPath = options.jsonPath
    /// Runs one figure within its limit and adds what it measured, or its failure.
    func figure<T: Sendable>(
      _ name: String, limit: Duration? = nil, _ body: @escaping @Sendable () async throws -> T,
      part: (T) -> Part = { $0 as? Part ?? Part() }
    ) async -> T? {
      let outcome = await Self.bounded(name, limit: limit ?? limits.each, body)
      switch outcome {
      case .success(let value):
        let measured = part(value)
        report.rows += measured.rows
        report.notes += measured.notes
        report.skipped += measured.skipped
        if let jsonPath { try? report.write(json: jsonPath) }
        return value
      case .failure(let failure):
        progress("\(name) FAILED: \(failure)")
        report.failed.append("\(name): \(failure)")
        if let jsonPath { try? report.write(json: jsonPath) }
        return nil
      }
    }

    let quick = options.quick
    if options.partThree {
      report.notes.append(
        "--part-three: 1 message in 10 of B1's database with reactions and 1 in 10 a reply; "
          + "1 send in 10 of B4 a reply to the one before, and a reaction to it queued before another 1 in 10"
      )
    }
    if options.wants("B1") || options.wants("B2") || options.wants("B3") || options.wants("B10") {
      progress("B1: building the client database")
      var layout = quick ? StorageLayout.quick : .full
      layout.partThree = options.partThree
      let built = layout
      let keepB1 = options.wants("B1")
      let ingest = await figure("B1") {
        try await IngestFigure.run(layout: built, folder: folder)
      } part: {
        keepB1 ? Part(rows: $0.1) : Part()
      }
      if let fixture = ingest?.0 {
        if options.wants("B2") || options.wants("B10") {
          let wanted = options.only
          _ = await figure("B2, B10") {
            let rows = try await OpenFigure.run(fixture, counts: quick ? .quick : .full)
            return Part(rows: rows.filter { wanted?.contains($0.figure) ?? true })
          }
        }
        if options.wants("B3") {
          _ = await figure("B3") {
            Part(rows: try await SearchFigure.run(fixture, samples: quick ? 100 : 1_000))
          }
        }
      }
    }

    // B15 builds a 5,000,000-message database (minutes): in a full run, only when named.
    if options.wants("B15") {
      if quick || options.only?.contains("B15") == true {
        progress("B15: building a two-year database")
        _ = await figure("B15", limit: limits.twoYears) {
          Part(
            rows: try await TwoYearFigure.run(folder: folder, counts: quick ? .quick : .full))
        }
      } else {
        report.skipped.append(
          "B15: builds a 5,000,000-message database (minutes): chat-bench --only B15")
      }
    }

    var sendToSent: Samples?
    var oneAtATime: Samples?
    var endToEnd: Samples?
    let network = ["B4", "B5", "B6", "B7", "B9"]
    if network.contains(where: options.wants) {
      let server = try BenchServer(folder: folder + "/server")
      if options.wants("B4") {
        let partThree = options.partThree
        let outcome = await figure("B4") {
          try await SendFigure.run(
            server: server, counts: quick ? .quick : .full, partThree: partThree)
        } part: {
          Part(rows: $0.rows)
        }
        sendToSent = outcome?.sendToSent
        oneAtATime = outcome?.oneAtATime
      }
      if options.wants("B5") {
        let outcome = await figure("B5") {
          try await EndToEndFigure.run(server: server, messages: quick ? 300 : 2_000)
        } part: {
          Part(rows: [$0.0])
        }
        endToEnd = outcome?.1
      }
      if options.wants("B6") {
        _ = await figure("B6") {
          let (row, notes) = try await ThroughputFigure.run(server: server, quick: quick)
          return Part(rows: [row], notes: notes)
        }
      }
      if options.wants("B7") {
        _ = await figure("B7") {
          let messages = quick ? 100 : 1_000
          return Part(rows: [
            try await FanOutFigure.run(server: server, messages: messages),
            try await FanOutFigure.run(
              server: server, messages: messages, stalled: FanOutFigure.stalledMembers),
          ])
        }
      }
      if options.wants("B9") {
        _ = await figure("B9") {
          Part(rows: [
            try await CatchUpFigure.run(
              server: server, missed: quick ? 2_000 : 10_000, repetitions: quick ? 1 : 5)
          ])
        }
      }
      await server.stop()
    }
    if options.wants("B8") {
      _ = await figure("B8") {
        let (rows, notes, skipped) = try await EchoFigure.run(
          connections: quick ? 1_000 : 10_000, seconds: quick ? 1 : 3, rounds: quick ? 1 : 3,
          withPeer: !quick)
        return Part(rows: rows, notes: notes, skipped: skipped)
      }
    }
    if options.wants("B6S") {
      progress("B6S: durable sends without the network")
      _ = await figure("B6S") {
        Part(rows: try await GroupCommitFigure.run(folder: folder, quick: quick))
      }
    }
    if options.wants("B12") {
      _ = await figure("B12") {
        let (rows, notes) = try await PhotoFigure.run(
          folder: folder, photos: quick ? 10 : 50, puts: quick ? 5 : 20)
        return Part(rows: rows, notes: notes)
      }
    }
    if options.wants("B13") {
      progress("B13: pushes and long polls")
      _ = await figure("B13") {
        Part(
          rows: try await PushFigure.run(
            folder: folder, pushes: quick ? 20 : 200, polls: quick ? 20 : 200))
      }
    }
    if options.wants("B14") {
      if let postgres = options.postgres {
        let nats = options.nats
        progress("B14: several nodes on PostgreSQL")
        _ = await figure("B14") {
          let (rows, notes) = try await NodesFigure.run(
            postgres: postgres, nats: nats, quick: quick)
          return Part(rows: rows, notes: notes)
        }
      } else {
        report.skipped.append(
          "B14: needs a PostgreSQL cluster: chat-bench --postgres DIR "
            + "(scripts/postgres-local start)"
        )
      }
    }
    if options.wants("B11") {
      _ = await figure("B11") {
        let (rows, skipped) = try await TLSFigure.run(
          folder: folder, counts: quick ? .quick : .full, withPeers: !quick)
        return Part(rows: rows, skipped: skipped)
      }
    }
    report.rows.sort { Int($0.figure.dropFirst()) ?? 0 < Int($1.figure.dropFirst()) ?? 0 }

    if let folder = options.svgFolder {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      var series: [Chart.Series] = []
      if let sendToSent {
        series.append(
          Chart.Series(
            name: "B4 send-to-sent", color: "#1f77b4", samples: sendToSent,
            targets: [(0.5, 1.5), (0.99, 5)]))
      }
      if let oneAtATime {
        series.append(
          Chart.Series(
            name: "B4 send-to-sent, one at a time", color: "#2ca02c", samples: oneAtATime,
            targets: []))
      }
      if let endToEnd {
        series.append(
          Chart.Series(
            name: "B5 end to end", color: "#ff7f0e", samples: endToEnd,
            targets: [(0.5, 1), (0.99, 5)]))
      }
      let path = folder + "/latency.svg"
      try Chart.write(
        series,
        title: "chat-bench \(report.mode): B4 and B5 latency (circles: targets, same colour)",
        to: path)
      progress("wrote \(path)")
    }

    report.machine.loadAtEnd = MachineDescription.loadAverage()
    report.durationSeconds = Nanos.seconds(Nanos.now() - started)
    print("chat-bench (\(report.mode)): \(report.machine.summary)")
    print(report.table())
    for note in report.notes { print("note: \(note)") }
    for skipped in report.skipped { print("skipped: \(skipped)") }
    for failed in report.failed { print("failed: \(failed)") }
    print(String(format: "finished in %.1f s", report.durationSeconds))
    // Nothing a figure started outlives the run.
    ChildProcess.killAll()
    report.complete = true
    if let path = options.jsonPath {
      try report.write(json: path)
      progress("wrote \(path)")
    }
    return report.failed.isEmpty ? 0 : 1
  }

  /// `body`'s value, or why it has none: it threw, or it ran past `limit`. Past the limit the
  /// processes it started are killed and it may start no more (`ChildProcess.retire`), and its
  /// task is cancelled and left behind: a figure blocked in a thread cannot be stopped from
  /// outside, and the run goes on without it (a figure of B4–B9 out of time leaves the server
  /// they share to the next ones: say so when reading them).
  static func bounded<T: Sendable>(
    _ name: String, limit: Duration, _ body: @escaping @Sendable () async throws -> T
  ) async -> Result<T, BenchError> {
    // The processes it starts are this call's, for `ChildProcess.retire`.
    let owner = Int.random(in: 1...Int.max)
    // Whether it was answered, and the two tasks racing to answer.
    let state = Locked<(answered: Bool, work: Task<Void, Never>?, timer: Task<Void, Never>?)>(
      (false, nil, nil))
    return await withCheckedContinuation { continuation in
      @Sendable func answer(_ result: Result<T, BenchError>, timedOut: Bool) {
        let first = state.withLock { state in
          defer { state.answered = true }
          return !state.answered
        }
        guard first else { return }
        let (work, timer) = state.withLock { ($0.work, $0.timer) }
        if timedOut {
          ChildProcess.retire(owner)
          work?.cancel()
        } else {
          timer?.cancel()
        }
        continuation.resume(returning: result)
      }
      let timer = Task {
        guard (try? await Task.sleep(for: limit)) != nil else { return }
        let seconds = limit.components.seconds
        answer(.failure(BenchError("ran out of its time limit, \(seconds) s")), timedOut: true)
      }
      let work = Task {
        do {
          let value = try await ChildProcess.$owner.withValue(owner) { try await body() }
          answer(.success(value), timedOut: false)
        } catch {
          answer(.failure(BenchError("\(error)")), timedOut: false)
        }
      }
      let answered = state.withLock { state in
        (state.work, state.timer) = (work, timer)
        return state.answered
      }
      // Answered before the tasks were stored: nothing else is left to stop.
      if answered { timer.cancel() }
    }
  }
}

/// How long each figure may take before it is reported failed: generous, several times what
/// it takes here, so that only a hang or a machine far slower reaches it.
struct FigureLimits {
  /// Any figure but B15.
  var each: Duration
  /// B15, which builds a 5,000,000-message database first.
  var twoYears: Duration

  init(quick: Bool, override seconds: Int?) {
    each = .seconds(seconds ?? (quick ? 300 : 1_200))
    twoYears = .seconds(seconds ?? (quick ? 600 : 5_400))
  }
}
