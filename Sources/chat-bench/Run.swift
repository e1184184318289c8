import Foundation

/// One run of every figure asked for, in order, sharing the client database B1 builds.
struct Run {
  let options: ChatBench.Options

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
      let (fixture, rows) = try await IngestFigure.run(layout: layout, folder: folder)
      if options.wants("B1") { report.rows += rows }
      if options.wants("B2") || options.wants("B10") {
        let rows = try await OpenFigure.run(fixture, counts: quick ? .quick : .full)
        report.rows += rows.filter { options.wants($0.figure) }
      }
      if options.wants("B3") {
        report.rows += try await SearchFigure.run(fixture, samples: quick ? 100 : 1_000)
      }
    }

    // B15 builds a 5,000,000-message database (minutes): in a full run, only when named.
    if options.wants("B15") {
      if quick || options.only?.contains("B15") == true {
        progress("B15: building a two-year database")
        report.rows += try await TwoYearFigure.run(
          folder: folder, counts: quick ? .quick : .full)
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
        let outcome = try await SendFigure.run(
          server: server, counts: quick ? .quick : .full, partThree: options.partThree)
        report.rows += outcome.rows
        sendToSent = outcome.sendToSent
        oneAtATime = outcome.oneAtATime
      }
      if options.wants("B5") {
        let (row, samples) = try await EndToEndFigure.run(
          server: server, messages: quick ? 300 : 2_000)
        report.rows.append(row)
        endToEnd = samples
      }
      if options.wants("B6") {
        let (row, notes) = try await ThroughputFigure.run(server: server, quick: quick)
        report.rows.append(row)
        report.notes += notes
      }
      if options.wants("B7") {
        report.rows.append(
          try await FanOutFigure.run(server: server, messages: quick ? 100 : 1_000))
      }
      if options.wants("B9") {
        report.rows.append(
          try await CatchUpFigure.run(
            server: server, missed: quick ? 2_000 : 10_000, repetitions: quick ? 1 : 5))
      }
      await server.stop()
    }
    if options.wants("B8") {
      let (rows, notes, skipped) = try await EchoFigure.run(
        connections: quick ? 1_000 : 10_000, seconds: quick ? 1 : 3, rounds: quick ? 1 : 3,
        withPeer: !quick)
      report.rows += rows
      report.notes += notes
      report.skipped += skipped
    }
    if options.wants("B6S") {
      progress("B6S: durable sends without the network")
      report.rows += try await GroupCommitFigure.run(folder: folder, quick: quick)
    }
    if options.wants("B12") {
      let (rows, notes) = try await PhotoFigure.run(
        folder: folder, photos: quick ? 10 : 50, puts: quick ? 5 : 20)
      report.rows += rows
      report.notes += notes
    }
    if options.wants("B13") {
      progress("B13: pushes and long polls")
      report.rows += try await PushFigure.run(
        folder: folder, pushes: quick ? 20 : 200, polls: quick ? 20 : 200)
    }
    if options.wants("B14") {
      if let postgres = options.postgres {
        progress("B14: several nodes on PostgreSQL")
        let (rows, notes) = try await NodesFigure.run(postgres: postgres, quick: quick)
        report.rows += rows
        report.notes += notes
      } else {
        report.skipped.append(
          "B14: needs a PostgreSQL cluster: chat-bench --postgres DIR "
            + "(scripts/postgres-local start)"
        )
      }
    }
    if options.wants("B11") {
      let (rows, skipped) = try await TLSFigure.run(
        folder: folder, counts: quick ? .quick : .full, withPeers: !quick)
      report.rows += rows
      report.skipped += skipped
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
    print(String(format: "finished in %.1f s", report.durationSeconds))
    if let path = options.jsonPath {
      try report.write(json: path)
      progress("wrote \(path)")
    }
    return 0
  }
}
