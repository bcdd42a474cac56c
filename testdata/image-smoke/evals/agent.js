// A cli agent: prints its Node version as the answer.
console.log(`node ${process.version} and python via the grader`);
