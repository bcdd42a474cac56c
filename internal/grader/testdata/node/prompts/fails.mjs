console.error('template broke');
process.exit(2);
