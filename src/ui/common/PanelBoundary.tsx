import { Component } from 'react';
import type { ComponentType, ReactNode } from 'react';
import { quoteText } from '../../core';

interface Props {
  /** What the part is, for the message ("limiter settings", "timeline"). */
  what: string;
  children: ReactNode;
}

/**
 * Keeps one part of the page from taking the rest down: an error thrown while it renders or in
 * its effects (stored data of another version, a bug) replaces that part with a message saying
 * which part stopped and why; every other part goes on working.
 */
export class PanelBoundary extends Component<Props, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  // Typed as an Error; anything else thrown is shown as it stringifies.
  static getDerivedStateFromError(error: Error): { error: Error } {
    return { error };
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (error === null) return this.props.children;
    // An Error reads "TypeError: its message".
    const why = String(error);
    return (
      <p className="panel panel-failed" role="alert">
        {`The ${this.props.what} stopped working: ${quoteText(why, 120)}. Reload the page to try it again.`}
      </p>
    );
  }
}

/** `Part` behind a PanelBoundary of its own, named `what` in the message. */
export function guarded<P extends object>(Part: ComponentType<P>, what: string): ComponentType<P> {
  return (props: P) => (
    <PanelBoundary what={what}>
      <Part {...props} />
    </PanelBoundary>
  );
}
