// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyPicker } from '../../src/ui/traffic/KeyPicker';

describe('KeyPicker', () => {
  afterEach(cleanup);

  it('lists the file’s columns and picks one as the key', () => {
    const onPick = vi.fn();
    render(
      <KeyPicker
        keySpec={[{ kind: 'client' }]}
        fields={['time', 'plan']}
        headers={false}
        onPick={onPick}
      />,
    );
    const select = screen.getByRole('combobox', { name: /key/i });
    expect(screen.getByRole('group', { name: 'Column of the file' })).toBeTruthy();
    expect(screen.getByRole('option', { name: 'column plan' })).toBeTruthy();
    fireEvent.change(select, { target: { value: 'field:plan' } });
    expect(onPick).toHaveBeenCalledWith([{ kind: 'field', name: 'plan' }]);
    fireEvent.change(select, { target: { value: 'xff-first' } });
    expect(onPick).toHaveBeenLastCalledWith([{ kind: 'xff-first' }]);
  });

  it('names HAR fields as request headers and shows the field the key names', () => {
    render(
      <KeyPicker
        keySpec={[{ kind: 'field', name: 'x-api-key' }]}
        fields={['accept']}
        headers
        onPick={() => {}}
      />,
    );
    const select = screen.getByRole<HTMLSelectElement>('combobox', { name: /key/i });
    expect(select.value).toBe('field:x-api-key');
    expect(screen.getByRole('group', { name: 'Request header' })).toBeTruthy();
    expect(screen.getByRole('option', { name: 'header accept' })).toBeTruthy();
  });

  it('shows no column group for a line log', () => {
    render(<KeyPicker keySpec={[]} fields={[]} headers={false} onPick={() => {}} />);
    expect(screen.queryByRole('group')).toBeNull();
    expect(screen.getByRole<HTMLSelectElement>('combobox').value).toBe('all');
  });
});
