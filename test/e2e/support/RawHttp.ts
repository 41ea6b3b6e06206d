/**
 * HTTP over a raw `node:net` socket, for the tests of what the server does before and while a body
 * arrives: a request head is sent alone, the body later or never, and the test sees exactly when
 * the answer came and whether the server closed the connection.
 */
import * as net from "node:net"

export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export const head = (
  method: string,
  path: string,
  headers: Readonly<Record<string, string>>
): string => `${method} ${path} HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`

/** A connection that collects what the server sends and notices when it closes. */
export class RawConnection {
  private received = Buffer.alloc(0)
  private closedFlag = false
  private readonly listeners = new Set<() => void>()
  /** Bytes of body this side managed to hand to the socket before it closed. */
  bodyBytesSent = 0

  private constructor(readonly socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk])
      this.notify()
    })
    socket.on("error", () => undefined)
    socket.on("close", () => {
      this.closedFlag = true
      this.notify()
    })
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1")
      socket.once("connect", () => resolve(new RawConnection(socket)))
      socket.once("error", reject)
    })
  }

  private notify() {
    for (const listener of this.listeners) listener()
  }

  get closed(): boolean {
    return this.closedFlag
  }

  /** How many bytes came back so far (a failure report tells "nothing" from "not all"). */
  get receivedBytes(): number {
    return this.received.length
  }

  /** The response, once its head and whole body (by Content-Length) are in; undefined before. */
  get response(): RawResponse | undefined {
    const end = this.received.indexOf("\r\n\r\n")
    if (end === -1) return undefined
    const [statusLine = "", ...lines] = this.received.subarray(0, end).toString("latin1").split("\r\n")
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(":")
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers["content-length"] ?? "0")
    const body = this.received.subarray(end + 4)
    if (body.length < length) return undefined
    return { status: Number(statusLine.split(" ")[1]), headers, body: body.subarray(0, length).toString("utf8") }
  }

  /** Everything after the response head so far (an SSE stream's frames). */
  get streamed(): string {
    const end = this.received.indexOf("\r\n\r\n")
    return end === -1 ? "" : this.received.subarray(end + 4).toString("utf8")
  }

  write(data: string | Buffer): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.closedFlag || this.socket.destroyed) return resolve(false)
      this.socket.write(data, (error) => resolve(error === undefined || error === null))
    })
  }

  /** Sends `total` bytes of body in `chunkBytes` pieces (chunked encoding when `chunked`), stopping early if an answer came (unless `stopOnAnswer` is false). */
  async sendBody(
    total: number,
    options: { readonly chunkBytes?: number; readonly chunked?: boolean; readonly stopOnAnswer?: boolean } = {}
  ): Promise<void> {
    const chunkBytes = options.chunkBytes ?? 64 * 1024
    const piece = Buffer.alloc(chunkBytes, 0x61)
    const stopOnAnswer = options.stopOnAnswer ?? true
    while (this.bodyBytesSent < total && !(stopOnAnswer && this.response !== undefined) && !this.closed) {
      const size = Math.min(chunkBytes, total - this.bodyBytesSent)
      const data = options.chunked
        ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), piece.subarray(0, size), Buffer.from("\r\n")])
        : piece.subarray(0, size)
      if (!(await this.write(data))) return
      this.bodyBytesSent += size
      // A write the kernel takes at once calls back before any I/O is read: without a turn of the
      // event loop here this side would send megabytes without reading the answer it is waiting for
      // (a real client reads while it sends), and a server that then closes would reset it unread.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** Resolves once `condition` holds; fails after `timeoutMs` saying `what`. */
  until(what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!condition()) return
        this.listeners.delete(check)
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        this.listeners.delete(check)
        reject(new Error(`no ${what} within ${timeoutMs} ms; received: ${this.received.toString("utf8").slice(0, 500)}`))
      }, timeoutMs)
      this.listeners.add(check)
      check()
    })
  }

  async answer(timeoutMs?: number): Promise<RawResponse> {
    await this.until("response", () => this.response !== undefined, timeoutMs)
    const response = this.response
    if (response === undefined) throw new Error("no response")
    return response
  }

  /** Drops what was received so far, so that the next `answer()` reads the next response on this connection. */
  forgetAnswer(): void {
    this.received = Buffer.alloc(0)
  }

  close(): void {
    this.socket.destroy()
  }
}

/** Sends a head and an optional body on a fresh connection, and returns the answer and the connection. */
export const exchange = async (
  port: number,
  requestHead: string,
  body = ""
): Promise<{ response: RawResponse; connection: RawConnection }> => {
  const connection = await RawConnection.open(port)
  await connection.write(requestHead + body)
  const response = await connection.answer()
  return { response, connection }
}
