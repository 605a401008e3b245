"""The CFAgentBench app stack: one service layer per archetype, a portal and native tools per vendor."""
