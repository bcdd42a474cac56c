// TypeScript: AgentV runs it with bun.
console.log(JSON.stringify({ score: 1 }));
