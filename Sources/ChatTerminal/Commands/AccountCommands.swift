import ArgumentParsing
import ChatData
import ChatDomain
import Foundation
import SQLite

/// `chat login`: signs this device in (a server in dev mode) and creates its database.
struct LoginCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "login",
    abstract: "Sign in as --user on this device (the server must run with --dev).",
    usage: "chat --user ID [--device ID] login [<options>]")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions

  func run(_ context: CommandContext) async -> ExitCode {
    guard let user = context.options.user else {
      context.output.error("say who you are: chat --user ID login")
      return .validationFailure
    }
    let path: String
    do {
      path = try context.databasePath()
    } catch {
      return context.report(.usage(error))
    }
    let environment: ChatEngine.Environment
    do {
      environment = try context.engineEnvironment()
    } catch {
      return context.report(error)
    }
    let engine: ChatEngine
    do {
      engine = try await ChatEngine.devSignIn(
        user: user, device: context.options.device, database: .file(path),
        environment: environment)
    } catch {
      return context.report(CommandFailure(error))
    }
    let report = try? await engine.sync()
    await engine.close()
    if context.output.json {
      context.output.json(
        LoginJSON(
          userId: user.rawValue, deviceId: context.options.device.rawValue, database: path,
          conversations: report?.conversationsChanged ?? 0))
    } else {
      context.output.line("Signed in as \(user) on \(context.options.device).")
      context.output.note("Database: \(path)")
    }
    return .success
  }

  struct LoginJSON: Encodable {
    let userId: String
    let deviceId: String
    let database: String
    let conversations: Int
  }
}

/// `chat logout`: deletes this device's database and tokens.
struct LogoutCommand: ChatCommand {
  static let configuration = CommandConfiguration(
    commandName: "logout", abstract: "Sign out: delete this device's database and tokens.")

  @OptionGroup(title: "GLOBAL OPTIONS") var options: GlobalOptions

  func run(_ context: CommandContext) async -> ExitCode {
    let engine: ChatEngine
    do {
      engine = try await context.openEngine()
    } catch {
      return context.report(error)
    }
    let unsent = await engine.outboxCount()
    do {
      try await engine.signOut()
    } catch {
      return context.report(CommandFailure(error))
    }
    if unsent > 0 {
      context.output.note("\(unsent) unsent message(s) were deleted with the database.")
    }
    if context.output.json {
      context.output.json(["signedOut": true])
    } else {
      context.output.line("Signed out; the local database is deleted.")
    }
    return .success
  }
}
