// Exports a handler but never runs it: AgentV would read its silence as a pass.
export default function handler() {
  return { pass: false };
}
