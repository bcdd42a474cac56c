#!/usr/bin/env bun
/**
 * Parameterized assertion grader.
 *
 * A single code grader that handles common deterministic checks
 * (contains, regex, JSON validation, etc.) driven by YAML config.
 *
 * Config fields (passed via grader `config` in YAML):
 *   type    – assertion kind: contains | icontains | equals | regex | starts-with | is-json
 *   value   – expected substring, pattern, or prefix (not used for is-json)
 *   negated – when true, inverts the assertion (default: false)
 */
import { defineCodeGrader } from '@agentv/sdk';

type AssertionType = 'contains' | 'icontains' | 'equals' | 'regex' | 'starts-with' | 'is-json';

function runAssertion(type: AssertionType, candidate: string, value?: string): boolean {
  switch (type) {
    case 'contains':
      return value != null && candidate.includes(value);
    case 'icontains':
      return value != null && candidate.toLowerCase().includes(value.toLowerCase());
    case 'equals':
      return candidate === value;
    case 'regex':
      return value != null && new RegExp(value).test(candidate);
    case 'starts-with':
      return value != null && candidate.startsWith(value);
    case 'is-json':
      try {
        JSON.parse(candidate);
        return true;
      } catch {
        return false;
      }
  }
}

function getMessageText(
  messages: readonly { role: string; content?: unknown }[],
  role = 'assistant',
): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const msg = messages[i];
    if (msg.role === role) {
      if (typeof msg.content === 'string') return msg.content;
      if (Array.isArray(msg.content)) {
        return msg.content
          .filter((b: { type?: string }) => b.type === 'text')
          .map((b: { text?: string }) => b.text)
          .join('\n');
      }
    }
  }
  return '';
}

export default defineCodeGrader(({ output, criteria, config }) => {
  const outputText = getMessageText(output ?? []);
  const type = (config?.type as AssertionType) ?? 'contains';
  const value = config?.value as string | undefined;
  const negated = (config?.negated as boolean) ?? false;

  const rawPass = runAssertion(type, outputText, value);
  const pass = negated ? !rawPass : rawPass;

  const label = negated ? `NOT ${type}` : type;
  const detail = value != null ? `${label}(${JSON.stringify(value)})` : label;

  return {
    score: pass ? 1 : 0,
    assertions: [
      {
        text: `${pass ? 'PASS' : 'FAIL'}: ${detail}`,
        passed: pass,
        evidence: `Criteria: ${criteria}`,
      },
    ],
  };
});
