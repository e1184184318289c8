import ChatServerPostgres
import ChatServerTool

// The one program that links PostgreSQL: it hands the server what opens `--database`.
await ServerCommand.main(opening: PostgresDatabases())
