// An executable prompt template as AgentV runs it (definePromptTemplate without the SDK):
// the test as snake_case JSON on stdin, the judge prompt on stdout.
import { readFileSync } from 'node:fs';

const ctx = JSON.parse(readFileSync(0, 'utf8'));
const text = (m) => typeof m.content === 'string'
  ? m.content
  : m.content.map((b) => (b.type === 'file' ? `[${b.path}] ${b.text.trim()}` : b.value)).join(' | ');
const question = ctx.input.filter((m) => m.role === 'user').map(text).join('\n');
const reference = ctx.expected_output.map(text).join('\n');
console.log(`Question: ${question}
Answer: ${ctx.output}
Reference: ${reference}
Rubric: ${ctx.config?.rubric ?? 'none'}
Strict: ${ctx.config?.strict_mode === true}
Cwd: ${process.cwd()}
Echo: {{ output }}`);
