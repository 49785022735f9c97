export const meta = { name: 'slow', description: 'two agents that take their time' }

phase('Wait')
return await parallel([() => agent('slow one'), () => agent('slow two')])
