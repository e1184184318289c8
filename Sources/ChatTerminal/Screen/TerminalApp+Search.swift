import ChatIdentifiers
import ChatPresentation

/// The search and new-conversation screens' keys.
extension TerminalApp {
  func handleSearch(_ key: Key) {
    switch key {
    case .escape:
      model.mode = .list
      model.input = ""
      Task { await list.search("") }
    case .enter:
      let query = model.input
      model.selected = 0
      Task { await list.search(query) }
    case .up: model.selected = max(0, model.selected - 1)
    case .down:
      let count = list.viewState.search?.results.count ?? 0
      model.selected = min(max(0, count - 1), model.selected + 1)
    case .backspace: if !model.input.isEmpty { model.input.removeLast() }
    case .character(let character): model.input.append(character)
    case .control("o"): Task { await list.searchOlder() }
    case .tab:
      // The selected hit: its conversation, opened at the message.
      guard let results = list.viewState.search?.results, results.indices.contains(model.selected)
      else { return }
      let hit = results[model.selected]
      open(hit.conversationID)
      if let sequence = hit.sequence, let opened = conversation {
        Task { await opened.open(at: sequence) }
      }
    case .control("c"): quit()
    default: break
    }
  }

  func handleNewConversation(_ key: Key) {
    switch key {
    case .escape:
      model.mode = .list
    case .backspace:
      if !model.input.isEmpty { model.input.removeLast() }
    case .character(let character):
      model.input.append(character)
    case .enter:
      guard let title = model.pendingTitle else {
        model.pendingTitle = model.input
        model.input = ""
        return
      }
      let members = model.input.split(separator: ",").compactMap {
        UserID(rawValue: $0.trimmingCharacters(in: .whitespaces))
      }
      model.input = ""
      model.pendingTitle = nil
      model.mode = .list
      Task {
        if let id = await list.create(title: title, memberIDs: members) {
          open(id)
        } else {
          model.notice = list.viewState.alert
        }
        setNeedsRender()
      }
    default:
      break
    }
  }
}
