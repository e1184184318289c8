import Foundation
import SQLite
import Support
import Synchronization
import Testing

@Suite struct DatabaseExecutorTests {
  actor Counter {
    let executor: ThreadExecutor
    var values: [Int] = []
    var threads: Set<String> = []
    init(executor: ThreadExecutor) { self.executor = executor }
    nonisolated var unownedExecutor: UnownedSerialExecutor {
      executor.asUnownedSerialExecutor()
    }
    func append(_ value: Int) {
      values.append(value)
      threads.insert(Thread.current.name ?? "?")
    }
  }

  @Test func jobsRunInOrderOnTheExecutorsOwnThread() async {
    let executor = ThreadExecutor(name: "test.db")
    defer { executor.shutdown() }
    let counter = Counter(executor: executor)
    for value in 0..<100 {
      executor.spawn { await counter.append(value) }
    }
    await executor.waitUntilIdle()
    #expect(await counter.values == Array(0..<100))
    #expect(await counter.threads == ["test.db"])
  }

  @Test func waitUntilIdleWaitsForWorkStartedByWork() async {
    let executor = ThreadExecutor(name: "test.chain")
    defer { executor.shutdown() }
    let counter = Counter(executor: executor)
    @Sendable func chain(_ n: Int) async {
      await counter.append(n)
      if n < 50 { executor.spawn { await chain(n + 1) } }
    }
    executor.spawn { await chain(0) }
    await executor.waitUntilIdle()
    #expect(await counter.values.count == 51)
  }
}
