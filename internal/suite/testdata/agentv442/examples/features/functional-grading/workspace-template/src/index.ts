/**
 * Implement the following functions:
 *
 * 1. add(a, b) - returns the sum of a and b
 * 2. multiply(a, b) - returns the product of a and b
 * 3. fibonacci(n) - returns the nth Fibonacci number (0-indexed)
 */

// TODO: implement add
export function add(a: number, b: number): number {
  throw new Error('Not implemented');
}

// TODO: implement multiply
export function multiply(a: number, b: number): number {
  throw new Error('Not implemented');
}

// TODO: implement fibonacci
export function fibonacci(n: number): number {
  throw new Error('Not implemented');
}
