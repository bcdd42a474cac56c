// What defineAssertion prints when the handler throws: an error result, exit code 1.
console.log(JSON.stringify({ score: 0, assertions: [{ text: 'Assertion failed: boom', passed: false }] }));
process.exit(1);
