// A custom assertion as AgentV runs it: the test arrives as snake_case JSON on stdin and the
// result goes to stdout, as defineAssertion from @agentv/sdk does (without needing the SDK).
import { readFileSync } from 'node:fs';

const input = JSON.parse(readFileSync(0, 'utf8'));
const min = input.config?.min_words ?? 3;
const words = (input.output ?? '').trim().split(/\s+/).filter(Boolean).length;
const pass = words >= min;
console.log(JSON.stringify({
  score: pass ? 1 : Math.min(words / min, 0.9),
  assertions: [{ text: `Output has ${words} words (need ${min})`, passed: pass }],
}));
