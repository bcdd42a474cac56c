// Echoes the stdin it received into details, so tests can check AgentV's payload.
import { readFileSync } from 'node:fs';

const input = JSON.parse(readFileSync(0, 'utf8'));
console.log(JSON.stringify({ score: 1, details: { stdin: input, cwd: process.cwd() } }));
