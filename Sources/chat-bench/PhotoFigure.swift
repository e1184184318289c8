import ChatAPI
import ChatData
import ChatDomain
import ChatIdentifiers
import ChatLoad
import ChatPresentation
import ChatServerTool
import ChatTransports
import Foundation
import ImagePipeline
import Support

/// B12: a photo sent end to end on loopback, as seed 003 draws it: picked (a 12-megapixel JPEG
/// on disk) → compressed on the device (1,600 px, about 200 KB, a thumbnail) → uploaded to the
/// object store through its presigned URL → the message accepted with the key → B's screen
/// shows the row with its thumbnail (B's socket, B's store, B's view state). One photo at a
/// time. The reference server as `chat-server` runs it, with its built-in store.
///
/// Beside it: the compression alone, and one 8 MiB part `PUT` to the same store by our
/// transport next to `curl` putting the same bytes to the same presigned URL (the upload's
/// bytes per second, ours and a peer's).
enum PhotoFigure {
  @MainActor
  static func run(folder: String, photos: Int, puts: Int) async throws -> ([ResultRow], [String]) {
    var options = ServerOptions(dataFolder: folder + "/photo-server")
    options.port = 0
    options.devMode = true
    options.rateLimit = nil
    options.objectStorePort = 0
    let server = try ReferenceServer.start(options, log: DiscardingLogSink())
    defer { Task { await server.stop() } }
    let base = URL(string: server.url)!
    func device(_ user: String) async throws -> ChatEngine {
      let wire = try WireHTTPTransport(baseURL: base)
      var environment = ChatEngine.Environment(
        http: wire, live: WireLiveTransport(url: "ws://127.0.0.1:\(server.port)/v1/live"),
        clock: BenchClock())
      environment.objects = wire
      environment.mediaProcessing = LinuxMediaProcessing()
      return try await ChatEngine.devSignIn(
        user: UserID(user), device: DeviceID("phone"),
        database: .file(folder + "/photo-\(user).sqlite"), environment: environment)
    }
    let alice = try await device("erin")
    let bob = try await device("frank")
    let chat = try await alice.conversationList.createConversation(
      title: "B12", memberIDs: [UserID("frank")])
    try await alice.startAndConnect()
    try await bob.startAndConnect()
    let screen = ConversationViewModel(conversation: chat, sources: bob.sources)
    let watching = Task { @MainActor in await screen.onAppear() }

    progress("B12: making a 12-megapixel photo")
    let picked = folder + "/picked.jpg"
    let pickedBytes = try ImagePipeline.encode(Self.photo(width: 4_000, height: 3_000), quality: 90)
    try Data(pickedBytes).write(to: URL(fileURLWithPath: picked))

    var endToEnd = Samples()
    var compression = Samples()
    var uploaded = 0
    let warmUp = max(2, photos / 10)
    for index in 0..<(warmUp + photos) {
      let started = Nanos.now()
      let id = try await alice.media.send(.photo(path: picked), caption: "B12 \(index)", in: chat)
      let saved = Nanos.now()
      await ViewStateProbe.wait(for: screen) { state in
        state.rows.contains { $0.id == id && $0.media?.thumbnail != nil }
      }
      if index >= warmUp {
        endToEnd.add(Nanos.now() - started)
        compression.add(saved - started)
      }
      if index == 0 {
        uploaded =
          (try await alice.localMessages(in: chat)).first { $0.id == id }?.media?.byteCount ?? 0
      }
    }
    watching.cancel()
    progress(
      "B12: photo end to end median \(endToEnd.median / 1_000_000) ms, compression "
        + "\(compression.median / 1_000_000) ms, \(uploaded) bytes uploaded")

    let (ours, curl, notes) = try await partPuts(server: server, count: puts, folder: folder)
    await alice.close()
    await bob.close()

    let bytesPerSecond = { (samples: Samples) -> Double in
      samples.median > 0 ? Double(APILimits.mediaPartBytes) / (Double(samples.median) / 1e9) : 0
    }
    var rows = [
      ResultRow.latency(
        "B12", "photo: pick → compressed → uploaded → accepted → thumbnail on B's screen",
        workload: "12 MP JPEG (\(pickedBytes.count / 1024) KiB), loopback, one at a time, "
          + "\(photos) photos", samples: endToEnd, target: "p50 ≤ 1 s",
        met: { median, _ in median <= 1_000 }, note: "seed 003: the photo shows at once"),
      ResultRow.latency(
        "B12", "photo compression on the device (decode, 1,600 px, JPEG, thumbnail, sha256)",
        workload: "the same photo → \(uploaded / 1024) KiB", samples: compression, target: ""),
    ]
    var put = ResultRow.latency(
      "B12", "one 8 MiB part PUT to the built-in store, ours", workload: "\(puts) PUTs, loopback",
      samples: ours, baselineName: curl.count > 0 ? "curl" : nil,
      baseline: curl.count > 0 ? curl : nil, target: "")
    put.details["MBps"] = bytesPerSecond(ours) / 1e6
    if curl.count > 0 { put.details["curlMBps"] = bytesPerSecond(curl) / 1e6 }
    rows.append(put)
    return (rows, notes)
  }

  /// A 12-megapixel picture with detail a JPEG must spend bytes on: gradients and a pattern.
  static func photo(width: Int, height: Int) -> RGBImage {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    var state: UInt32 = 0x1234_5678
    for y in 0..<height {
      for x in 0..<width {
        state = state &* 1_664_525 &+ 1_013_904_223
        let noise = Int(state >> 28)
        let at = (y * width + x) * 3
        pixels[at] = UInt8(truncatingIfNeeded: x * 255 / width + noise)
        pixels[at + 1] = UInt8(truncatingIfNeeded: y * 255 / height + ((x / 40 + y / 40) % 2) * 40)
        pixels[at + 2] = UInt8(truncatingIfNeeded: (x ^ y) & 0xFF)
      }
    }
    return RGBImage(width: width, height: height, pixels: pixels)
  }

  /// `count` PUTs of one 8 MiB part to the same presigned URL (a PUT is idempotent), by our
  /// transport and by `curl`.
  private static func partPuts(server: ReferenceServer, count: Int, folder: String)
    async throws -> (Samples, Samples, [String])
  {
    let http = try WireHTTPTransport(baseURL: URL(string: server.url)!)
    let login = try await http.send(
      APIRequest(.devLogin, json: DevLogin(userId: "grace", deviceId: "bench")))
    let token = try APICoding.decode(Tokens.self, from: login.body).accessToken
    var bytes = [UInt8](repeating: 0, count: APILimits.mediaPartBytes)
    var state: UInt64 = 42
    for index in bytes.indices {
      state = state &* 6_364_136_223_846_793_005 &+ 1
      bytes[index] = UInt8(truncatingIfNeeded: state >> 56)
    }
    var request = APIRequest(
      .createUpload,
      json: CreateUpload(
        kind: .file, contentType: "application/octet-stream", byteCount: bytes.count,
        sha256: String(repeating: "0", count: 64), fileName: "part.bin"))
    request.headers["Authorization"] = "Bearer \(token)"
    let created = try await http.send(request)
    let upload = try APICoding.decode(Upload.self, from: created.body)
    guard let url = upload.parts.first?.url else { throw BenchError("no part URL") }
    var ours = Samples()
    for _ in 0..<count + 2 {
      let started = Nanos.now()
      let response = try await http.send(ObjectRequest(method: "PUT", url: url, body: bytes))
      guard response.status == 200 else { throw BenchError("PUT answered \(response.status)") }
      ours.add(Nanos.now() - started)
    }
    ours = Samples(Array(ours.values.dropFirst(2)))
    let file = folder + "/part.bin"
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    var curl = Samples()
    var notes: [String] = []
    for _ in 0..<count + 2 {
      let started = Nanos.now()
      let process: ChildProcess
      do {
        process = try ChildProcess(
          "/usr/bin/curl", ["-s", "-f", "-o", "/dev/null", "-T", file, url])
      } catch {
        notes.append("B12: curl could not run (\(error)); no baseline")
        return (ours, Samples(), notes)
      }
      let ended = process.wait()
      guard ended == .exited(0) else {
        notes.append("B12: curl ended \(ended); no baseline")
        return (ours, Samples(), notes)
      }
      curl.add(Nanos.now() - started)
    }
    curl = Samples(Array(curl.values.dropFirst(2)))
    notes.append(
      "B12: curl's time includes starting its process (about a millisecond); ours reuses a "
        + "kept-alive connection")
    return (ours, curl, notes)
  }
}
