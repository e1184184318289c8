import ChatData
import ChatDomain
import ChatIdentifiers
import ChatPresentation

/// What the terminal screen shows besides the view models' states: which screen, the
/// selection, what is being typed. The screen keeps this; the view models decide the rest.
public struct ScreenModel: Equatable, Sendable {
  public enum Mode: Equatable, Sendable {
    case list
    case conversation(ConversationID)
    case search
    /// What waits to be sent, opened from the list's "3 messages waiting".
    case outbox
    case newConversation
    case help
  }

  public var mode: Mode = .list
  public var user: String
  public var selected = 0
  /// The line being typed: a message, a search, or the new conversation form.
  public var input = ""
  /// For the new conversation form: the title typed first, then the members.
  public var pendingTitle: String?
  /// Rows scrolled up from the bottom of a conversation.
  public var scroll = 0
  public var condition: NetworkCondition = .normal
  /// A one-line note (what just happened).
  public var notice: String?
  /// The message whose new text is being typed (Ctrl-E); Enter saves the edit.
  public var editing: MessageID?
  /// The message being answered (Ctrl-Y): Enter sends the line as a reply to it.
  public var replyingTo: QuoteRow?
  /// The message a first Ctrl-X offered to delete; a second Ctrl-X deletes it.
  public var confirmingDelete: MessageID?
  /// Ctrl-B works (the demo, with its push gateway): the hints and help say so.
  public var offersBackground = false
  /// The app is in the background (Ctrl-B in the demo): the socket is closed, pushes come.
  public var background = false
  /// What the lock screen shows while in the background, one line per conversation.
  public var notifications: [String] = []

  public init(user: String) {
    self.user = user
  }
}
