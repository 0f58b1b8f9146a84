/** Settings: the session's profile and model, per-tool approval overrides, auto-extraction, data sharing. */
import { h, setChildren } from '../dom';
import { EventMessage, Settings, SettingsSetArgs } from '../protocol.generated';
import { Tab, TabHost, guarded } from './base';

type Override = 'ask' | 'allow' | 'deny' | null;
type Level = 'rows' | 'aggregates' | 'schema';

const LEVELS: ReadonlyArray<[Level, string]> = [
  ['rows', 'rows — query results and sample values'],
  ['aggregates', 'aggregates — names, types and aggregate results only'],
  ['schema', 'schema — names and types only; results stay in the notebook']
];

export class SettingsTab implements Tab {
  readonly name = 'settings';
  readonly label = 'Settings';
  readonly node: HTMLElement;

  constructor(private readonly host: TabHost) {
    this._body = h('div', { class: 'sal-settings-body', id: 'sal-settings-body' });
    this.node = h('div', { class: 'sal-tab sal-settings', 'data-tab': 'settings' }, this._body);
  }

  clear(): void {
    setChildren(this._body);
  }

  async refresh(): Promise<void> {
    this._render(await this.host.request('settings_get', {}));
  }

  onEvent(ev: EventMessage): void {
    if (ev.event === 'profile_changed' || ev.event === 'session_changed') {
      void guarded(this.host, () => this.refresh());
    }
  }

  private _render(settings: Settings): void {
    const profile = h(
      'select',
      { id: 'sal-settings-profile', disabled: !settings.profiles.length, title: settings.profiles.length ? '' : 'Configure ShellAgent.profiles to choose one here' },
      h('option', { value: '', selected: !settings.profile }, settings.profiles.length ? 'automatic' : 'automatic (no profiles configured)'),
      ...settings.profiles.map(p => h('option', { value: p.name, selected: p.name === settings.profile }, `${p.name} (${p.backend}${p.model ? ` · ${p.model}` : ''})`))
    );
    const model = h('input', { id: 'sal-settings-model', type: 'text', value: settings.model ?? '', placeholder: 'model name' });
    const extraction = h('input', { id: 'sal-settings-auto-extraction', type: 'checkbox', checked: settings.auto_extraction });
    const sharing = settings.data_sharing;
    this.host.showDataSharing?.(sharing);
    const level = h(
      'select',
      { id: 'sal-settings-data-sharing', disabled: !sharing, title: sharing?.text ?? '' },
      h('option', { value: '', selected: !sharing?.explicit }, `default for the endpoint${sharing && !sharing.explicit ? ` (${sharing.level})` : ''}`),
      ...LEVELS.map(([value, text]) => h('option', { value, selected: !!sharing?.explicit && sharing.level === value }, text))
    );
    const overrides = new Map<string, HTMLSelectElement>();
    const rows = settings.tools.map(tool => {
      const select = h(
        'select',
        { class: 'sal-approval-override', 'data-tool': tool.name },
        h('option', { value: '' }, `default (${tool.default})`),
        ...(['ask', 'allow', 'deny'] as const).map(v => h('option', { value: v, selected: tool.override === v }, v))
      );
      overrides.set(tool.name, select);
      return h('tr', {}, h('td', {}, h('code', {}, tool.name)), h('td', {}, tool.category), h('td', {}, select));
    });
    const save = h('button', { class: 'sal-button sal-primary', type: 'button', id: 'sal-settings-save' }, 'Save');
    save.addEventListener('click', () =>
      guarded(this.host, async () => {
        const args: SettingsSetArgs = { auto_extraction: extraction.checked, approvals: {} };
        const chosen = (level.value || null) as Level | null;
        if (sharing && chosen !== (sharing.explicit ? sharing.level : null)) {
          args.data_sharing = chosen;
        }
        if (profile.value && profile.value !== settings.profile) {
          args.profile = profile.value;
        }
        if (model.value.trim() && model.value.trim() !== (settings.model ?? '')) {
          args.model = model.value.trim();
        }
        for (const tool of settings.tools) {
          const value = (overrides.get(tool.name)!.value || null) as Override;
          if (value !== tool.override) {
            args.approvals![tool.name] = value;
          }
        }
        this._render(await this.host.request('settings_set', args));
        this.host.notify('Settings saved for this session.');
      })
    );
    setChildren(
      this._body,
      h('label', { class: 'sal-field' }, 'Profile ', profile),
      h('label', { class: 'sal-field' }, 'Model ', model),
      h('label', { class: 'sal-field' }, extraction, ' Update memory automatically after each turn'),
      h('label', { class: 'sal-field' }, 'What the model may read of the data ', level),
      sharing ? h('p', { class: 'sal-note', id: 'sal-settings-data-sharing-note' }, sharing.text) : null,
      h('h3', { class: 'sal-section' }, 'Approvals per tool'),
      h('table', { class: 'sal-tools' }, h('thead', {}, h('tr', {}, h('th', {}, 'tool'), h('th', {}, 'kind'), h('th', {}, 'approval'))), h('tbody', {}, ...rows)),
      h('div', { class: 'sal-toolbar' }, save),
      h('p', { class: 'sal-note' }, 'Panel preferences (first tab, auto-loading the kernel extension, timeouts) are in Settings → Settings Editor → shell-agent-lab.')
    );
  }

  private _body: HTMLElement;
}
