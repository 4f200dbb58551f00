// The replies of one WebSocket to tg-server: the server answers a connection's requests in the
// order they were sent (docs/server.md), its pushed lines (`event ...`, `lobby ...`) coming in
// between, so each request waits in line for the next reply. The match's connection (online.js)
// and the lobby's (lobby.js) each keep one.
export class Replies {
  #waiting = [];

  // Sends line on socket; resolves with its reply, or with `err disconnected ...` when the
  // socket is not open or closes first.
  ask(socket, line) {
    return new Promise((resolve) => {
      if (!socket || socket.readyState !== WebSocket.OPEN) {
        resolve('err disconnected the connection to the server is down');
        return;
      }
      this.#waiting.push(resolve);
      socket.send(line);
    });
  }

  // A line that is no pushed one: the reply to the oldest request still waiting.
  answer(line) {
    this.#waiting.shift()?.(line);
  }

  // The connection is gone (or given up): every request still waiting is answered
  // `err disconnected WHY`, never by another connection's replies.
  drop(why) {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve(`err disconnected ${why}`);
  }
}
