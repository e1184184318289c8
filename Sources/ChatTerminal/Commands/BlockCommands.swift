import ArgumentParsing
import ChatData
import ChatDomain
import ChatIdentifiers

/// `chat block` and `chat unblock`: changes my block list on the server, for every device of
/// mine (API.md Part 3, "Blocking").
struct BlockCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "block",
    abstract: "Block a user on all your devices (needs the server).",
    discussion:
      "Their messages to you in a one-to-one conversation are refused, no push comes for their messages, and in groups theirs show as \"Blocked message\". `chat unblock` undoes it; `chat blocked` lists whom you blocked."
  )

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The user to block.", valueName: "userId"),
    transform: GlobalOptions.userID)
  var user: UserID

  func run(_ context: CommandContext) async -> ExitCode {
    await changeBlock(user, block: true, context: context)
  }
}

struct UnblockCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "unblock",
    abstract: "Unblock a user on all your devices (needs the server).")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions
  @Argument(
    help: ArgumentHelp("The user to unblock.", valueName: "userId"),
    transform: GlobalOptions.userID)
  var user: UserID

  func run(_ context: CommandContext) async -> ExitCode {
    await changeBlock(user, block: false, context: context)
  }
}

/// `chat blocked`: whom I blocked, caught up from the server when it can be reached.
struct BlockedCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "blocked",
    abstract: "List the users you blocked (works offline).")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions

  func run(_ context: CommandContext) async -> ExitCode {
    await context.withEngine { engine throws(CommandFailure) in
      try await catchUpIfReachable(engine, context)
      let users: [UserID] = try await attempt { try await engine.blockedUsers() }
      printList(users, context: context)
      return .success
    }
  }
}

private func changeBlock(_ user: UserID, block: Bool, context: CommandContext) async -> ExitCode {
  await context.withEngine { engine throws(CommandFailure) in
    try await attempt {
      if block { try await engine.block(user) } else { try await engine.unblock(user) }
    }
    let users: [UserID] = try await attempt { try await engine.blockedUsers() }
    if context.output.json {
      printList(users, context: context)
    } else {
      context.output.line(block ? "Blocked \(user)." : "Unblocked \(user).")
    }
    return .success
  }
}

private func printList(_ users: [UserID], context: CommandContext) {
  if context.output.json {
    context.output.json(BlockedJSON(userIds: users.map(\.rawValue)))
  } else if users.isEmpty {
    context.output.line("You have blocked no one.")
  } else {
    for user in users { context.output.line(user.rawValue) }
  }
}

struct BlockedJSON: Encodable {
  let userIds: [String]
}
