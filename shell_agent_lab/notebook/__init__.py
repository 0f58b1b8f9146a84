"""The notebook front door: the %agent magic, the side panel's comm, widgets and the kernel-side runtime."""
