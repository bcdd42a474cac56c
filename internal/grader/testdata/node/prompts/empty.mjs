console.log('   ');
