/** JupyterLab plugin: the shell-agent-lab side panel in the right area. */
import { ILayoutRestorer, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { DEFAULT_PREFERENCES, Preferences, SidePanel } from './panel';

const PLUGIN_ID = 'shell-agent-lab:plugin';

export namespace CommandIDs {
  export const open = 'shell-agent-lab:open-panel';
  export const loadExtension = 'shell-agent-lab:load-kernel-extension';
  export const reconnect = 'shell-agent-lab:reconnect';
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'Side panel for the shell-agent-lab assistant of the active notebook.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ISettingRegistry, ILayoutRestorer],
  activate: (app: JupyterFrontEnd, tracker: INotebookTracker, registry: ISettingRegistry | null, restorer: ILayoutRestorer | null) => {
    const panel = new SidePanel(tracker);
    app.shell.add(panel, 'right', { rank: 900 });
    restorer?.add(panel, panel.id);

    app.commands.addCommand(CommandIDs.open, {
      label: 'Open the assistant panel',
      execute: () => app.shell.activateById(panel.id)
    });
    app.commands.addCommand(CommandIDs.loadExtension, {
      label: 'Load shell_agent_lab in the notebook kernel',
      execute: () => panel.loadExtension()
    });
    app.commands.addCommand(CommandIDs.reconnect, {
      label: 'Reconnect the assistant panel',
      execute: () => panel.reconnect()
    });

    if (registry) {
      registry
        .load(PLUGIN_ID)
        .then(settings => {
          const apply = () => panel.setPreferences({ ...DEFAULT_PREFERENCES, ...(settings.composite as Partial<Preferences>) });
          apply();
          settings.changed.connect(apply);
        })
        .catch(reason => console.error('shell-agent-lab: could not load settings', reason));
    }
  }
};

export default plugin;
