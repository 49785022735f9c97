// hostile: a loop that never yields, inside try/catch/finally
// expect: TIMEOUT within 10s
// timeout: 500ms
for (;;) { try { while (true) {} } catch (e) {} finally { continue } }
