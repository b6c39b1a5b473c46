/**
 * How many webhook deliveries a simulated service sends: at most `limit` in any `windowMs`.
 * In the sandbox an agent woken by a delivery acts on the simulated service, and its action is
 * delivered again; an agent that answers every event with an action would otherwise loop at
 * machine speed. A delivery past the bound is not sent (the service drops it, as a receiver
 * that fell behind would see), and `held` counts it.
 */
export class DeliveryBound {
  private sent: number[] = [];
  private holding = false;
  /** Deliveries not sent because the bound was reached. */
  held = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = () => Date.now(),
    /** Told of the first delivery held back after one that went (the sandbox prints it). */
    private readonly onHeld: (bound: DeliveryBound) => void = () => {},
  ) {}

  /** Whether one more delivery may go now; counts it when it may. */
  take(): boolean {
    const at = this.now();
    this.sent = this.sent.filter((t) => t > at - this.windowMs);
    if (this.sent.length < this.limit) {
      this.sent.push(at);
      this.holding = false;
      return true;
    }
    this.held++;
    if (!this.holding) this.onHeld(this);
    this.holding = true;
    return false;
  }
}

/** The sandbox's bound: 30 deliveries a minute per simulated service. */
export const sandboxDeliveryLimit = { limit: 30, windowMs: 60_000 } as const;
